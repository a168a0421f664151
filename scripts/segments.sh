#!/usr/bin/env bash
# Measures query latency over segments (docs/updates.md): builds an index
# of CRAWL, then updates it 15 times with the merge policy off, each time
# after rewriting another 1% of the files (every 100th in path order, from
# offset i, a paragraph appended), so that it holds 1 + i segments with
# deletions; benchmarks one-thread AND and OR top-10 on the built index
# (1 segment), after 3 updates (4 segments), after 15 (16), and after
# merging those 16 into one; and on a second index that took the same 15
# updates under the merge policy of the configuration POLICY_CONFIG (the
# default one when unset), its steady state, timing those updates. Writes
# WORKDIR/segments.json. With BEFORE set to another gpusearch binary, it
# then runs ROUNDS rounds (default 8) of the same benchmark (3 s a row)
# on the merged and the policy's index, BEFORE and GPUSEARCH alternated
# in each round, one JSON line per run into WORKDIR/before-after.jsonl.
# INDEX_FLAGS adds flags to the build (e.g. "--store none --positions=false"
# for indexes small enough to carry to another machine's quiet cores).
#
#   bash scripts/segments.sh CRAWL QUERIES WORKDIR [GPUSEARCH]
set -euo pipefail
crawl=$1 queries=$2 work=$3 bin=${4:-./gpusearch}
policy=()
[ -n "${POLICY_CONFIG:-}" ] && policy=(--config "$POLICY_CONFIG")
mkdir -p "$work"
rm -rf "$work"/c "$work"/ix "$work"/ix-* "$work"/bench-* "$work"/policy-updates.time
printf 'index:\n  merge:\n    policy: off\n' >"$work/nomerge.yaml"
cp -al "$crawl" "$work/c"
# shellcheck disable=SC2086 # INDEX_FLAGS is a list of flags
"$bin" index --quiet ${INDEX_FLAGS:-} --out "$work/ix" "$work/c"
bench() { # bench NAME: one-thread AND and OR top-10 on the index NAME
	"$bin" bench queries --index "$work/$1" --queries "$queries" --engine cpu --mode and,or --threads 1 --min-time 2s --json >"$work/bench-$1.json"
}
cp -a "$work/ix" "$work/ix-1"
cp -a "$work/ix" "$work/ix-policy"
bench ix-1
for i in $(seq 1 15); do
	python3 - "$work/c" "$i" <<'PY'
import os, sys
root, off = sys.argv[1], int(sys.argv[2])
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
               if f.endswith((".html", ".htm", ".txt", ".md")) and not f.startswith(".")
               and not os.path.islink(os.path.join(d, f)))
for k in range(off, len(files), 100):
    p = files[k]
    data = open(p, "rb").read()
    os.unlink(p)
    with open(p, "wb") as f:
        f.write(data + b"\n<p>updated paragraph zyzzyva %d</p>\n" % k)
PY
	"$bin" index --update --quiet --config "$work/nomerge.yaml" --out "$work/ix" "$work/c"
	/usr/bin/time -f '%e %U %S' -a -o "$work/policy-updates.time" \
		"$bin" index --update --quiet "${policy[@]}" --out "$work/ix-policy" "$work/c"
	case $i in
	3) cp -a "$work/ix" "$work/ix-4" && bench ix-4 ;;
	15) cp -a "$work/ix" "$work/ix-16" && bench ix-16 ;;
	esac
done
cp -a "$work/ix-16" "$work/ix-merged"
"$bin" merge --all --quiet --out "$work/ix-merged"
bench ix-merged
bench ix-policy
python3 - "$work" "$crawl" <<'PY'
import json, sys
work, crawl = sys.argv[1], sys.argv[2]
times = [list(map(float, l.split())) for l in open(f"{work}/policy-updates.time") if l.strip() and l[0].isdigit()]
out = {"crawl": crawl, "policy_updates": {"count": len(times), "mean_wall_s": round(sum(t[0] for t in times) / len(times), 2),
       "mean_cpu_s": round(sum(t[1] + t[2] for t in times) / len(times), 2)}, "rows": []}
for name in ["ix-1", "ix-4", "ix-16", "ix-merged", "ix-policy"]:
    meta = json.load(open(f"{work}/{name}/meta.json"))["index"]
    rows = json.load(open(f"{work}/bench-{name}.json"))["results"]
    out["rows"].append({"index": name, "segments": max(1, len(meta.get("segments", []))),
                        "bench": [{k: r[k] for k in ["mode", "algorithm", "mean_us", "p50_us", "p99_us", "cpu_us", "queries", "runs"]} for r in rows]})
json.dump(out, open(f"{work}/segments.json", "w"), indent=1)
PY
rm -rf "$work"/c
[ -n "${BEFORE:-}" ] || exit 0
: >"$work/before-after.jsonl"
for round in $(seq 1 "${ROUNDS:-8}"); do
	for b in before after; do
		exe=$bin
		[ "$b" = before ] && exe=$BEFORE
		for name in ix-merged ix-policy; do
			"$exe" bench queries --index "$work/$name" --queries "$queries" --engine cpu --mode and,or --threads 1 --min-time 3s --json |
				python3 -c 'import json, sys
r = json.load(sys.stdin)["results"]
print(json.dumps({"round": int(sys.argv[1]), "binary": sys.argv[2], "index": sys.argv[3], "load": open("/proc/loadavg").read().split()[0], **{x["mode"]: x["cpu_us"] for x in r}}))' "$round" "$b" "$name" >>"$work/before-after.jsonl"
		done
	done
done
