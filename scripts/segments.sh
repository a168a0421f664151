#!/usr/bin/env bash
# Measures query latency over segments (docs/updates.md): builds an index
# of CRAWL, then updates it 15 times with the merge policy off, each time
# after rewriting another 1% of the files (every 100th in path order, from
# offset i, a paragraph appended), so that it holds 1 + i segments with
# deletions; benchmarks one-thread AND and OR top-10 on the built index
# (1 segment), after 3 updates (4 segments), after 15 (16), and after
# merging those 16 into one; and on a second index that took the same 15
# updates under the merge policy of the configuration POLICY_CONFIG (the
# default one when unset), its steady state, timing those updates (CPU
# time, and each one's report with its merge time) and the build (the
# rebuild they compare with); the policy's index is also kept and
# benchmarked after each update POLICY_SNAPSHOTS lists (e.g. "9": the
# point of its cycle before a purge). Writes WORKDIR/segments.json. With
# BEFORE set to another gpusearch binary, a third copy takes the same
# updates from BEFORE under its own default policy (ix-policy-before,
# policy-updates-before.time), and ROUNDS rounds (default 8) of
# GPUSEARCH's benchmark then measure the merged index, BEFORE's steady
# state, GPUSEARCH's and its snapshots interleaved query by query (3 s
# each a mode), one JSON line a round into WORKDIR/before-after.jsonl.
# INDEX_FLAGS adds flags to the build (e.g. "--store none --positions=false"
# for indexes small enough to carry to another machine's quiet cores).
#
#   bash scripts/segments.sh CRAWL QUERIES WORKDIR [GPUSEARCH]
set -euo pipefail
crawl=$1 queries=$2 work=$3 bin=${4:-./gpusearch}
policy=()
[ -n "${POLICY_CONFIG:-}" ] && policy=(--config "$POLICY_CONFIG")
mkdir -p "$work"
rm -rf "$work"/c "$work"/ix "$work"/ix-* "$work"/bench-* "$work"/policy-updates* "$work"/build.time
printf 'index:\n  merge:\n    policy: off\n' >"$work/nomerge.yaml"
cp -al "$crawl" "$work/c"
# shellcheck disable=SC2086 # INDEX_FLAGS is a list of flags
/usr/bin/time -f '%e %U %S' -o "$work/build.time" "$bin" index --quiet ${INDEX_FLAGS:-} --out "$work/ix" "$work/c"
bench() { # bench NAME: one-thread AND and OR top-10 on the index NAME
	"$bin" bench queries --index "$work/$1" --queries "$queries" --engine cpu --mode and,or --threads 1 --min-time 2s --json >"$work/bench-$1.json"
}
cp -a "$work/ix" "$work/ix-1"
cp -a "$work/ix" "$work/ix-policy"
[ -n "${BEFORE:-}" ] && cp -a "$work/ix" "$work/ix-policy-before"
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
		"$bin" index --update --quiet --json "${policy[@]}" --out "$work/ix-policy" "$work/c" |
		python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)))' >>"$work/policy-updates.jsonl"
	if [ -n "${BEFORE:-}" ]; then
		/usr/bin/time -f '%e %U %S' -a -o "$work/policy-updates-before.time" \
			"$BEFORE" index --update --quiet --out "$work/ix-policy-before" "$work/c"
	fi
	for s in ${POLICY_SNAPSHOTS:-}; do
		[ "$s" = "$i" ] && cp -a "$work/ix-policy" "$work/ix-policy-$i" && bench "ix-policy-$i"
	done
	case $i in
	3) cp -a "$work/ix" "$work/ix-4" && bench ix-4 ;;
	15) cp -a "$work/ix" "$work/ix-16" && bench ix-16 ;;
	esac
done
cp -a "$work/ix-16" "$work/ix-merged"
"$bin" merge --all --quiet --out "$work/ix-merged"
bench ix-merged
bench ix-policy
python3 - "$work" "$crawl" "${POLICY_SNAPSHOTS:-}" <<'PY'
import json, os, sys
work, crawl, snaps = sys.argv[1], sys.argv[2], sys.argv[3].split()
def cpu(path):
    return [round(t[1] + t[2], 2) for t in (list(map(float, l.split())) for l in open(path) if l.strip() and l[0].isdigit())]
times, build = cpu(f"{work}/policy-updates.time"), cpu(f"{work}/build.time")[0]
reports = [json.loads(l) for l in open(f"{work}/policy-updates.jsonl")]
out = {"crawl": crawl, "build_cpu_s": build, "policy_updates": {"count": len(times), "mean_cpu_s": round(sum(times) / len(times), 2),
       "max_cpu_s": max(times), "cpu_s": times, "merged": [r["merged"] for r in reports],
       "merge_wall_s": [round(r["merge_ns"] / 1e9, 2) for r in reports], "segments": [r["segments"] for r in reports]}, "rows": []}
if os.path.exists(f"{work}/policy-updates-before.time"):
    before = cpu(f"{work}/policy-updates-before.time")
    out["before_policy_updates"] = {"mean_cpu_s": round(sum(before) / len(before), 2), "max_cpu_s": max(before), "cpu_s": before}
for name in ["ix-1", "ix-4", "ix-16", "ix-merged", "ix-policy"] + [f"ix-policy-{s}" for s in snaps]:
    meta = json.load(open(f"{work}/{name}/meta.json"))["index"]
    rows = json.load(open(f"{work}/bench-{name}.json"))["results"]
    out["rows"].append({"index": name, "segments": max(1, len(meta.get("segments", []))),
                        "bench": [{k: r[k] for k in ["mode", "algorithm", "mean_us", "p50_us", "p99_us", "cpu_us", "queries", "runs"]} for r in rows]})
json.dump(out, open(f"{work}/segments.json", "w"), indent=1)
PY
rm -rf "$work"/c
[ -n "${BEFORE:-}" ] || exit 0
: >"$work/before-after.jsonl"
indexes=$work/ix-merged,$work/ix-policy-before,$work/ix-policy
for s in ${POLICY_SNAPSHOTS:-}; do indexes=$indexes,$work/ix-policy-$s; done
for round in $(seq 1 "${ROUNDS:-8}"); do
	"$bin" bench queries --index "$indexes" --queries "$queries" --engine cpu --mode and,or --threads 1 --min-time 3s --json |
		python3 -c 'import json, os, sys
out = {"round": int(sys.argv[1]), "load": open("/proc/loadavg").read().split()[0]}
for r in json.load(sys.stdin)["results"]:
    out.setdefault(os.path.basename(r["index"]), {})[r["mode"]] = {"cpu_us": r["cpu_us"], "p50_us": r["p50_us"]}
print(json.dumps(out))' "$round" >>"$work/before-after.jsonl"
done
