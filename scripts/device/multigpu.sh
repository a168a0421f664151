#!/usr/bin/env bash
# GPU machine run (nvidia-h100-x2): a 2.5x10^7-document synthetic
# collection as two shards on two GPUs in one node against one GPU
# holding it all. From the repository root, with .device/gpusearch (a
# CUDA build) and .device/gpu.test carried (not the whole .device, which
# would replace the collection kept there):
#   OUT=... bash scripts/device/multigpu.sh
# Steps, each kept between calls on the same warm machine and skipped
# when done, so that a call that runs out of its budget is made again:
# 0. the GPU tests of two shards on two devices and of the list cache
#    (gpu.test), once;
# 1. the collection: $COLL, by default gen-shards.sh's directory
#    (.device/data/g25m-2: gen index --docs $DOCS --shards 2 --codec
#    gpu-bp256 --seed 1, about 240-300 s there; it is reused when
#    gen-shards.sh made it). gen index on one writer takes 143 s per 10^6
#    documents on the loaded 2-core dev box, and 470 s for 2.5x10^7 on
#    the H100 machine's 16 cores (scale.md);
# 2. WHOLE=1 only: the same documents as one index ($W/ix, gen index
#    --docs $DOCS --seed 1 --codec gpu-bp256, one call of its own), for
#    a third setup, the whole index on device 0;
# 3. gen queries --n $NQ (2000, seed 1) from shard 0's lexicon (its df
#    are about half the collection's, and so is the postings target);
# 4. bench gpu multi: both shards on device 0 (one GPU holding it all),
#    then shard i on device i (the shards searched at once, merged), and
#    with WHOLE=1 first the whole index on device 0: latency one query at
#    a time, queries/s of SearchBatch per batch size with 3 callers and
#    the best whose slowest batch met 500 ms, AND and OR, every setup's
#    answers against the first's: $OUT/multigpu-raw.json and the summary
#    $OUT/multigpu.json.
# A step starts only if its estimate fits what is left of BUDGET (540 s);
# otherwise the script says so and exits 3: call it again.
# GPUSEARCH names another binary: with a build without CUDA, step 4 fails
# at once with "built without CUDA support". DOCS, NQ, DEVICES (0,1),
# COLL, WHOLE, WORK and BUDGET override the defaults.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/multigpu-out}
B=${GPUSEARCH:-$(pwd)/.device/gpusearch}
DOCS=${DOCS:-25000000}
NQ=${NQ:-2000}
DEVICES=${DEVICES:-0,1}
COLL=${COLL:-.device/data/g$((DOCS / 1000000))m-2}
WHOLE=${WHOLE:-0}
W=${WORK:-.device/data/multigpu}
BUDGET=${BUDGET:-540}
LOG=$OUT/multigpu.log
mkdir -p "$OUT" "$W"
[ -x "$B" ] || { [ -f "$B.gz" ] && gunzip -f "$B.gz" && chmod +x "$B"; }
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$LOG"; }
left() { echo $((BUDGET - ($(date +%s) - t0))); }
# need SECONDS STEP: exit 3 when the step's estimate does not fit.
need() {
	if [ "$(left)" -lt "$1" ]; then
		stamp "$2 needs about $1 s, $(left) s left: call the script again (done steps are kept)"
		exit 3
	fi
}
{ nvidia-smi -L; nproc; free -g | head -2; } >"$OUT/machine.txt" 2>&1
if [ -x .device/gpu.test ] && [ ! -f "$W/tested" ]; then # once per machine: the GPU tests of shards on two devices and the list cache, exact against the exhaustive scorer
	(cd gpu && timeout 120 ../.device/gpu.test -test.run 'TestShardsOnTwoDevices|TestEngineListCache' -test.v) >"$OUT/gpu-test.log" 2>&1
	stamp "gpu.test -test.run 'TestShardsOnTwoDevices|TestEngineListCache': rc $?, $(grep -c -- '^--- PASS' "$OUT/gpu-test.log") passed, $(grep -c -- '^--- FAIL' "$OUT/gpu-test.log") failed, $(grep -c -- '--- SKIP' "$OUT/gpu-test.log") skipped"
	touch "$W/tested"
fi
M=$((DOCS / 1000000 + 1))
IX=$W/ix-$DOCS

if [ ! -f "$COLL/shards.json" ]; then
	need $((12 * M + 10)) "gen index --shards 2"
	stamp "gen index --docs $DOCS --shards 2"
	rm -rf "$COLL"
	mkdir -p "$(dirname "$COLL")"
	timeout "$(left)" "$B" gen index --docs "$DOCS" --seed 1 --shards 2 --codec gpu-bp256 --out "$COLL" --quiet --json \
		>"$OUT/gen-shards.json" 2>>"$LOG" || { stamp "gen index --shards failed (rc $?)"; rm -rf "$COLL"; exit 1; }
fi
SETUPS=shards-1gpu,shards
if [ "$WHOLE" = 1 ]; then
	if [ ! -f "$IX/meta.json" ]; then
		need $((20 * M + 10)) "gen index (the whole index)"
		stamp "gen index --docs $DOCS"
		rm -rf "$IX"
		timeout "$(left)" "$B" gen index --docs "$DOCS" --seed 1 --codec gpu-bp256 --out "$IX" --quiet --json \
			>"$OUT/gen.json" 2>>"$LOG" || { stamp "gen index failed (rc $?)"; rm -rf "$IX"; exit 1; }
	fi
	SETUPS=whole,$SETUPS
fi
if [ ! -s "$W/q-$DOCS.txt" ]; then
	stamp "gen queries --n $NQ"
	"$B" gen queries --index "$COLL/shard-00" --n "$NQ" --seed 1 --out "$W/q-$DOCS.txt" 2>>"$LOG" ||
		{ stamp "gen queries failed"; exit 1; }
fi
need $((8 * M + 60)) "bench gpu multi"
stamp "bench gpu multi --setups $SETUPS"
WHOLEFLAG=()
[ "$WHOLE" = 1 ] && WHOLEFLAG=(--index "$IX")
timeout "$(left)" "$B" bench gpu multi ${WHOLEFLAG[@]+"${WHOLEFLAG[@]}"} --shards "$COLL" --setups "$SETUPS" --devices "$DEVICES" \
	--queries "$W/q-$DOCS.txt" --mode and,or --batch 1,32,256,2000 --callers 3 --deadline 500ms --min-time 1s --json \
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
