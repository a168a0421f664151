#!/usr/bin/env bash
# GPU machine run (nvidia-h100-x2): two shards on two GPUs in one node
# against one GPU holding the whole index. From the repository root, with
# .device/gpusearch (a CUDA build) carried:
#   OUT=... bash scripts/device/multigpu.sh
# Steps, each kept in $WORK and skipped when done, so that a call that
# runs out of its budget is simply made again on the same warm machine:
# 1. gen index --docs $DOCS (2.5x10^7, bp128, seed 1; the GPU engines
#    re-encode it to gpu-bp128 at upload): about 470 s on the H100
#    machine's 16 cores (scale.md: 468 s; gpu-bp256 took 1.45x as long at
#    5x10^6, too long for one call), 143 s per 10^6 documents on the
#    loaded 2-core dev box;
# 2. split --shards 2 into a sharded collection (74 s per 10^6 documents
#    on the dev box, half of gen's time);
# 3. gen queries --n $NQ (2000, seed 1) from the whole index;
# 4. bench gpu multi: the whole index on device 0, the two shards on
#    device 0 alone, and the two shards on devices 0 and 1: latency one
#    query at a time, and queries/s of SearchBatch per batch size with 3
#    callers, the best whose slowest batch met 500 ms, AND and OR; the
#    shards' answers checked against the whole index's: $OUT/multigpu-raw.json
#    and the summary $OUT/multigpu.json.
# A step starts only if its estimate fits the time left of BUDGET (540 s);
# otherwise the script says so and exits 3: call it again.
# GPUSEARCH names another binary: with a build without CUDA, step 4 fails
# at once with "built without CUDA support". DOCS, NQ, DEVICES (0,1),
# WORK and BUDGET override the defaults.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/multigpu-out}
B=${GPUSEARCH:-$(pwd)/.device/gpusearch}
DOCS=${DOCS:-25000000}
NQ=${NQ:-2000}
DEVICES=${DEVICES:-0,1}
W=${WORK:-/tmp/gpusearch-multigpu-work}
BUDGET=${BUDGET:-540}
LOG=$OUT/multigpu.log
mkdir -p "$OUT" "$W"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$LOG"; }
left() { echo $((BUDGET - ($(date +%s) - t0))); }
# need SECONDS STEP: exit 3 when the step's estimate does not fit.
need() {
	if [ "$(left)" -lt "$1" ]; then
		stamp "$2 needs about $1 s, $(left) s left: call the script again (done steps are kept in $W)"
		exit 3
	fi
}
{ nvidia-smi -L; nproc; free -g | head -2; } >"$OUT/machine.txt" 2>&1
if [ -x .device/gpu.test ] && [ ! -f "$W/tested" ]; then # once per machine: the GPU tests of shards on two devices and the list cache, exact against the exhaustive scorer
	(cd gpu && timeout 120 ../.device/gpu.test -test.run 'TestShardsOnTwoDevices|TestEngineListCache' -test.v) >"$OUT/gpu-test.log" 2>&1
	stamp "gpu.test -test.run 'TestShardsOnTwoDevices|TestEngineListCache': rc $?, $(grep -c -- '^--- PASS' "$OUT/gpu-test.log") passed, $(grep -c -- '^--- FAIL' "$OUT/gpu-test.log") failed, $(grep -c -- '--- SKIP' "$OUT/gpu-test.log") skipped"
	touch "$W/tested"
fi
IX=$W/ix-$DOCS
COLL=$W/coll-$DOCS
M=$((DOCS / 1000000 + 1))

if [ ! -f "$IX/meta.json" ]; then
	need $((20 * M + 10)) "gen index"
	stamp "gen index --docs $DOCS"
	rm -rf "$IX"
	timeout "$(left)" "$B" gen index --docs "$DOCS" --seed 1 --codec bp128 --out "$IX" --quiet --json \
		>"$OUT/gen.json" 2>>"$LOG" || { stamp "gen index failed (rc $?)"; exit 1; }
fi
if [ ! -f "$COLL/shards.json" ]; then
	need $((12 * M + 10)) "split"
	stamp "split --shards 2"
	rm -rf "$COLL"
	timeout "$(left)" "$B" split --shards 2 --quiet --json "$IX" "$COLL" >"$OUT/split.json" 2>>"$LOG" ||
		{ stamp "split failed (rc $?)"; exit 1; }
fi
if [ ! -s "$W/q-$DOCS.txt" ]; then
	stamp "gen queries --n $NQ"
	"$B" gen queries --index "$IX" --n "$NQ" --seed 1 --out "$W/q-$DOCS.txt" 2>>"$LOG" || { stamp "gen queries failed"; exit 1; }
fi
need $((8 * M + 60)) "bench gpu multi"
stamp "bench gpu multi"
timeout "$(left)" "$B" bench gpu multi --index "$IX" --shards "$COLL" --devices "$DEVICES" --queries "$W/q-$DOCS.txt" \
	--mode and,or --batch 1,32,256,2000 --callers 3 --deadline 500ms --min-time 1s --json \
	>"$OUT/multigpu-raw.json" 2>>"$LOG"
rc=$?
if [ $rc -ne 0 ]; then
	stamp "bench gpu multi failed (rc $rc): $(tail -1 "$LOG")"
	exit 1
fi
python3 - "$OUT" <<'EOF'
import json, os, sys
out = sys.argv[1]
r = json.load(open(os.path.join(out, "multigpu-raw.json")))
s = {"index": r["index"], "queries": r["queries"], "deadline_ms": r["deadline_ms"], "ratios": r["ratios"],
     "setups": [{"name": x["name"], "shards": x["shards"], "devices": x["devices"],
                 "modes": [{k: m[k] for k in ("mode", "mean_us", "p50_us", "p99_us", "qps_at_deadline", "best_batch", "mismatches")}
                           for m in x["modes"]]} for x in r["setups"]]}
json.dump(s, open(os.path.join(out, "multigpu.json"), "w"), indent=1)
print(json.dumps(s["ratios"], indent=1))
EOF
stamp "done"
