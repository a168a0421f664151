#!/usr/bin/env bash
# GPU machine run: the GPU list cache with half the index on the device.
# From the repository root, with .device/gpusearch (a CUDA build) carried:
#   OUT=... bash scripts/device/gpucache.sh
# 1. gen index --docs $DOCS (5x10^6, gpu-bp256, seed 1; 90 s) and gen
#    queries (--n $NQ, 20000, seed 1: docs/gpu-cache.md's log, whose
#    simulated hit rates this run repeats exactly) into $WORK, kept there:
#    a second call on the same warm machine skips them.
# 2. bench gpu cache without a GPU (the policies' simulation, fractions
#    0.25 to 1, AND and OR), lists of 4 KiB and more long ($LONG: at the
#    default 64 KiB the short lists alone are 55% of this index's bytes):
#    $OUT/gpucache-sim.json. Its sizes give the cache fraction F at which
#    the short lists and the cache together are half of the index's lists
#    (about 0.31).
# 3. bench gpu cache --latency at fractions F and 0.5: each policy's GPU
#    engine with that cache against a resident one, one query at a time
#    after the same warm-up: $OUT/gpucache-gpu.json.
# 4. $OUT/gpucache.json: the summary docs/gpu-cache.md keeps (docs/data).
# GPUSEARCH names another binary: with a build without CUDA, step 3 fails
# at once with "built without CUDA support" and the summary says so.
# DOCS, NQ, LONG (--long-list-bytes), WORK and BUDGET (seconds, 540)
# override the defaults.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpucache-out}
B=${GPUSEARCH:-$(pwd)/.device/gpusearch}
DOCS=${DOCS:-5000000}
NQ=${NQ:-20000}
LONG=${LONG:-4096}
W=${WORK:-/tmp/gpusearch-gpucache-work}
BUDGET=${BUDGET:-540}
LOG=$OUT/gpucache.log
mkdir -p "$OUT" "$W"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$LOG"; }
left() { echo $((BUDGET - ($(date +%s) - t0))); }
{ nvidia-smi -L; nproc; } >"$OUT/machine.txt" 2>&1
if [ -x .device/gpu.test ]; then # the GPU tests of the list cache, exact against the exhaustive scorer
	(cd gpu && timeout 120 ../.device/gpu.test -test.run 'TestEngineListCache' -test.v) >"$OUT/gpu-test.log" 2>&1
	stamp "gpu.test -test.run 'TestEngineListCache': rc $?, $(grep -c -- '^--- PASS' "$OUT/gpu-test.log") passed, $(grep -c -- '^--- FAIL' "$OUT/gpu-test.log") failed, $(grep -c -- '--- SKIP' "$OUT/gpu-test.log") skipped"
fi

if [ ! -f "$W/ix-$DOCS/meta.json" ]; then
	stamp "gen index --docs $DOCS"
	rm -rf "$W/ix-$DOCS"
	timeout "$(left)" "$B" gen index --docs "$DOCS" --seed 1 --codec gpu-bp256 --out "$W/ix-$DOCS" --quiet --json \
		>"$OUT/gen.json" 2>>"$LOG" || { stamp "gen index failed or ran out of time (rc $?); run again"; exit 1; }
fi
if [ ! -s "$W/q-$DOCS.txt" ]; then
	stamp "gen queries --n $NQ"
	"$B" gen queries --index "$W/ix-$DOCS" --n "$NQ" --seed 1 --out "$W/q-$DOCS.txt" 2>>"$LOG" || { stamp "gen queries failed"; exit 1; }
fi
stamp "simulation"
"$B" bench gpu cache --index "$W/ix-$DOCS" --queries "$W/q-$DOCS.txt" --mode and,or --long-list-bytes "$LONG" --json \
	>"$OUT/gpucache-sim.json" 2>>"$LOG" || { stamp "bench gpu cache (simulation) failed"; exit 1; }
F=$(python3 -c '
import json, sys
ix = json.load(open(sys.argv[1]))["index"]
short, long = ix["short_bytes"], ix["long_bytes"]
print("%.3f" % min(1, max(0.01, (0.5 * (short + long) - short) / long)))' "$OUT/gpucache-sim.json")
stamp "GPU latency at fractions $F (half the index) and 0.5 of the long lists"
timeout "$(left)" "$B" bench gpu cache --index "$W/ix-$DOCS" --queries "$W/q-$DOCS.txt" --mode and,or --long-list-bytes "$LONG" \
	--fractions "$F,0.5" --latency --json >"$OUT/gpucache-gpu.json" 2>>"$LOG"
rc=$?
[ $rc -eq 0 ] || { stamp "bench gpu cache --latency failed (rc $rc): $(tail -1 "$LOG")"; rm -f "$OUT/gpucache-gpu.json"; }
python3 - "$OUT" <<'EOF'
import json, os, sys
out = sys.argv[1]
sim = json.load(open(os.path.join(out, "gpucache-sim.json")))
s = {"index": sim["index"], "queries": sim["queries"], "warmup_queries": sim["warmup_queries"],
     "simulated": [{k: r[k] for k in ("mode", "policy", "fraction", "hit_rate", "byte_hit_rate")} for r in sim["rows"]]}
p = os.path.join(out, "gpucache-gpu.json")
if os.path.exists(p):
    g = json.load(open(p))
    s["device"] = (g.get("device") or {}).get("name")
    s["resident"] = g.get("resident")
    s["gpu"] = [{**r["gpu"], "policy": r["policy"], "fraction": r["fraction"], "simulated_hit_rate": r["hit_rate"]}
                for r in g["rows"] if r.get("gpu")]
else:
    s["gpu"] = "failed: see gpucache.log"
json.dump(s, open(os.path.join(out, "gpucache.json"), "w"), indent=1)
print(json.dumps(s.get("gpu"), indent=1)[:3000])
EOF
stamp "done"
