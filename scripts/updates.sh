#!/usr/bin/env bash
# Measures `gpusearch index --update` against a full rebuild (docs/updates.md).
# Builds an index of CRAWL; then, for each share of changed files, makes a
# hard-linked copy of the crawl, rewrites that share of its files (every
# k-th in path order, a paragraph appended), times an update of a copy of
# the index (with a CPU profile; it writes a segment) and a full rebuild of
# the changed crawl, and checks, after merging the updated index's
# segments into one (untimed), that the two have the same data files,
# byte for byte. Writes
# WORKDIR/summary.json. INDEX_FLAGS are given to the build and the
# rebuilds (an update keeps the index's own options); SHARES lists the
# shares of files to change.
#
#   bash scripts/updates.sh CRAWL WORKDIR [GPUSEARCH]
set -euo pipefail
crawl=$1 work=$2 bin=${3:-./gpusearch}
flags=${INDEX_FLAGS:-} shares=${SHARES:-0.001 0.01 0.1}
mkdir -p "$work"
rm -rf "$work"/base "$work"/c-* "$work"/i-* "$work"/r-*
timed() { # timed NAME COMMAND...: wall, user and system seconds in NAME.time
	local name=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$work/$name.time" "$@"
}
timed build "$bin" index $flags --quiet --json --out "$work/base" "$crawl" >"$work/build.json"
for share in $shares; do
	cp -al "$crawl" "$work/c-$share"
	python3 "$(dirname "$0")/change-crawl.py" "$work/c-$share" "$share"
	cp -a "$work/base" "$work/i-$share"
	timed "update-$share" "$bin" index --update --quiet --json --out "$work/i-$share" \
		--cpuprofile "$work/update-$share.pprof" "$work/c-$share" >"$work/update-$share.json"
	timed "rebuild-$share" "$bin" index $flags --quiet --json --out "$work/r-$share" "$work/c-$share" >"$work/rebuild-$share.json"
	"$bin" merge --all --quiet --out "$work/i-$share"
	same=true
	for f in "$work/r-$share"/gen-*/*; do
		cmp -s "$f" "$work/i-$share"/gen-*/"$(basename "$f")" || { same=false; echo "$share: $(basename "$f") differs" >&2; }
	done
	echo "$same" >"$work/same-$share"
	rm -rf "$work/r-$share" "$work/i-$share" "$work/c-$share"
done
python3 - "$work" "$crawl" "$flags" $shares <<'PY'
import json, sys
work, crawl, flags, shares = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def t(name):
    wall, user, sys_ = map(float, open(f"{work}/{name}.time").read().split()[-3:])
    return {"wall_s": wall, "cpu_s": round(user + sys_, 2)}
build = json.load(open(f"{work}/build.json"))
out = {"crawl": crawl, "flags": flags, "documents": build["documents"], "input_mb": round(build["input_bytes"] / 1e6, 1),
       "index_mb": round(build["index_bytes"] / 1e6, 1), "build": t("build"), "updates": []}
for share in shares:
    u = json.load(open(f"{work}/update-{share}.json"))
    row = {"share": float(share), "changed": u["changed"], "update": t(f"update-{share}"),
           "segments": u["segments"],
           "phases_s": {k: round(u[k + "_ns"] / 1e9, 2) for k in ["walk", "hash", "parse", "commit", "merge"]},
           "rebuild": t(f"rebuild-{share}"), "same_files": open(f"{work}/same-{share}").read().strip() == "true"}
    row["update_over_rebuild_wall"] = round(row["update"]["wall_s"] / row["rebuild"]["wall_s"], 3)
    row["update_over_rebuild_cpu"] = round(row["update"]["cpu_s"] / row["rebuild"]["cpu_s"], 3)
    out["updates"].append(row)
json.dump(out, open(f"{work}/summary.json", "w"), indent=1)
print(json.dumps(out, indent=1))
PY
