#!/usr/bin/env bash
# GPU machine run for issue 10: the scheduler's affinity order and batched
# GPU fit against the first version, on the index and queries of
# hybrid.sh (2x10^6 docs, gpu-bp256, seed 2; 600 queries, seed 3: 400
# fit, 200 load). From the repository root, with .device carried (`make
# device`):
#   OUT=... bash scripts/device/affinity.sh
# 1. the GPU query engine's tests (committed PTX);
# 2. bench fit --gpu-batch 1 (the first version's fit: the GPU timed one
#    query at a time), kept as old-model.json; then bench fit with the
#    default batch (gpu.batch, 64), whose samples are kept; both models are
#    kept (old-model.json, cost-model.json) for bench simulate;
# 3. bench load --sweep (3 s per rate, 4 bisections) for each variant
#    (VARIANTS, ';'-separated, OLD_MODEL standing for the first fit's model
#    file; default below), each cut at SWEEP_TIMEOUT
#    seconds (110), from START_RATE (4000) q/s.
# Everything is packed in $OUT/affinity.tgz, again after each step, so
# that a run cut by the device's time limit still brings back its part.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/affinity-out}
B=.device/gpusearch
R=$(mktemp -d)
W=$(mktemp -d)
LOG=$R/affinity.log
mkdir -p "$OUT"
pack() { tar czf "$OUT/affinity.tgz" -C "$R" .; }
. scripts/device/lib.sh
(cd gpu && timeout 150 "$(pwd)/../.device/gpu.test" -test.v -test.run 'TestEngine' -test.timeout 145s) >"$R/gpu-test.log" 2>&1
echo "gpu tests rc=$?: $(grep -c -- '^--- PASS' "$R/gpu-test.log") passed; $(grep -- '--- FAIL' "$R/gpu-test.log" | tr '\n' ' ')" | tee -a "$LOG"
scheduling_set
$B bench fit --index "$W/s" --queries "$W/fit.txt" --mode or --repeat 3 --gpu-batch 1 >"$R/fit-old.json" 2>>"$LOG"
mv "$W/s/cost-model.json" "$W/old-model.json"
$B bench fit --index "$W/s" --queries "$W/fit.txt" --mode or --repeat 3 --samples "$R/fit-samples.json" >"$R/fit.json" 2>>"$LOG"
cp "$W/old-model.json" "$W/s/cost-model.json" "$R/"
grep -h mean_relative_error "$R/fit-old.json" "$R/fit.json" | tee -a "$LOG"
pack
i=0
IFS=';' read -r -a variants <<<"${VARIANTS:-hybrid;hybrid --steal-oldest --model OLD_MODEL;cpu;gpu}"
for v in "${variants[@]}"; do
	v=${v//OLD_MODEL/$W/old-model.json}
	i=$((i + 1))
	echo "== $i: $v" | tee -a "$LOG"
	set -- $v
	p=$1
	shift
	timeout "${SWEEP_TIMEOUT:-110}" $B bench load --index "$W/s" --queries "$W/load.txt" --mode or --rate "${START_RATE:-4000}" --deadline 500ms \
		--policy "$p" "$@" --sweep --sweep-steps 4 --duration 3s --max-queries 1000000 >"$R/load-$i.json" 2>>"$LOG"
	grep -A2 max_rate "$R/load-$i.json" | tee -a "$LOG"
	pack
done
rm -rf "$W" "$R"
