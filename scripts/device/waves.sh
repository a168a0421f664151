#!/usr/bin/env bash
# GPU machine run for OR waves (issues 7 and 10) and gen's bounded memory
# (issue 9). From the repository root, with .device carried (built on the
# dev box by `make device`):
#   OUT=... bash scripts/device/waves.sh
#   1. every gpu/kernels/*.cu to PTX (mkptx.sh) in a scratch directory the
#      binaries load through GPUSEARCH_PTX_DIR; copies in $OUT/ptx/ (to commit);
#   2. the gpu package's tests on the GPU ($OUT/gpu-test.log);
#   3. scheduling (docs/scheduling.md): gen index 2x10^6 docs (gpu-bp256,
#      seed 2), 600 queries (seed 3: 400 fit, 200 load), bench fit, bench
#      load --sweep for cpu, gpu, hybrid, and hybrid with 15 CPU workers
#      ($OUT/sched-*.json);
#   4. bench gpu queries on the 2x10^6 index, OR mode, against bmw, with
#      batches up to 2048 ($OUT/bench-gpu-queries-2m.json);
#   5. with BIG=1: gen index 5x10^6 docs (seed 1) under /usr/bin/time -v
#      ($OUT/gen5m.*), 500 queries, the same bench gpu queries
#      ($OUT/bench-gpu-queries.json);
#   6. a summary ($OUT/summary.txt); everything also packed in $OUT/waves.tgz.
# Every step has a timeout cut to what is left of BUDGET seconds.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=${OUT:-/tmp/waves-out}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
BUDGET=${BUDGET:-560}
B=.device/gpusearch
mkdir -p "$OUT/ptx"
PTX=$(mktemp -d)
W=$(mktemp -d)
LOG=$OUT/waves.log
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$LOG"; }
tmo() {
	local left=$((BUDGET - ($(date +%s) - t0)))
	[ $left -lt 5 ] && left=5
	echo $(($1 < left ? $1 : left))
}

stamp "machine"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; "$NVCC" --version | tail -2; nproc; free -g | head -2; } >"$OUT/machine.txt" 2>&1

stamp "ptx"
for cu in gpu/kernels/*.cu; do
	name=$(basename "$cu" .cu)
	NVCC=$NVCC timeout "$(tmo 90)" sh gpu/kernels/mkptx.sh "$cu" "$PTX/$name.ptx" >>"$LOG" 2>&1 || echo "ptx $name failed" >>"$LOG"
done
cp "$PTX"/*.ptx "$OUT/ptx/"
export GPUSEARCH_PTX_DIR=$PTX

stamp "gpu tests"
(cd gpu && timeout "$(tmo 150)" "$ROOT/.device/gpu.test" -test.v -test.timeout 145s) >"$OUT/gpu-test.log" 2>&1
test_rc=$?

stamp "scheduling: gen 2e6"
timeout "$(tmo 80)" $B gen index --docs 2000000 --seed 2 --codec gpu-bp256 --out "$W/s" --quiet --json >"$OUT/sched-gen.json" 2>>"$LOG"
timeout "$(tmo 30)" $B gen queries --index "$W/s" --n 600 --seed 3 --out "$W/q.txt" 2>>"$LOG"
head -400 "$W/q.txt" >"$W/fit.txt"
tail -200 "$W/q.txt" >"$W/load.txt"
timeout "$(tmo 60)" $B bench fit --index "$W/s" --queries "$W/fit.txt" --mode or --repeat 3 >"$OUT/sched-fit.json" 2>>"$LOG"
for p in ${POLICIES:-cpu gpu hybrid}; do
	# STEPS bisections after the doubling (3 by default)
	stamp "scheduling: load $p"
	timeout "$(tmo 100)" $B bench load --index "$W/s" --queries "$W/load.txt" --mode or --rate 2000 --deadline 500ms \
		--policy "$p" --sweep --sweep-steps "${STEPS:-3}" --duration 3s >"$OUT/sched-load-$p.json" 2>>"$LOG"
done

stamp "bench gpu queries 2e6"
timeout "$(tmo 100)" $B bench gpu queries --index "$W/s" --queries "$W/q.txt" --mode or --k 10 --cpu bmw \
	--batch 1,8,32,128,512,2048 --min-time 1s --json >"$OUT/bench-gpu-queries-2m.json" 2>>"$LOG"
bgq_rc=$?
rm -rf "$W/s"

if [ -n "${BIG:-}" ]; then
	stamp "gen 5e6"
	/usr/bin/time -v timeout "$(tmo 120)" $B gen index --docs 5000000 --seed 1 --codec gpu-bp256 --out "$W/g" --quiet --json \
		>"$OUT/gen5m.json" 2>"$OUT/gen5m.time"
	timeout "$(tmo 30)" $B gen queries --index "$W/g" --n 500 --out "$W/q5.txt" 2>>"$LOG"
	stamp "bench gpu queries 5e6"
	timeout "$(tmo 150)" $B bench gpu queries --index "$W/g" --queries "$W/q5.txt" --mode or --k 10 --cpu bmw \
		--batch 1,8,32,128,512,2048 --min-time 1s --json >"$OUT/bench-gpu-queries.json" 2>>"$LOG"
fi
stamp "done"

{
	echo "== waves summary $(date -u +%FT%TZ) =="
	head -1 "$OUT/machine.txt"
	echo "tests rc=$test_rc: $(grep -c -- '^--- PASS' "$OUT/gpu-test.log") passed, $(grep -c -- '--- FAIL' "$OUT/gpu-test.log") failed"
	grep -m 20 -E -- '--- FAIL|panic|_test.go:[0-9]+:' "$OUT/gpu-test.log"
	grep -h -A5 max_rate "$OUT"/sched-load-*.json
	grep -E 'Maximum resident|Elapsed' "$OUT/gen5m.time" 2>/dev/null
	echo "bench gpu queries rc=$bgq_rc"
	python3 - "$OUT"/bench-gpu-queries*.json <<'PY'
import json, sys
for f in sys.argv[1:]:
  try:
    r = json.load(open(f))
  except Exception as e:
    print("no bench gpu queries JSON:", e); continue
  print(f, r['index']['docs'], 'docs')
  for m in r['modes']:
    print(f"mode {m['mode']}: mismatches {m['mismatches']}/{m['checked']}, batch vs single {m['batch_differs']}")
    for l in m['latency']:
        print(f"  {l['engine']:<10} {l['subset']:<3} mean {l['mean_us']:9.1f} us  p50 {l['p50_us']:9.1f}  p99 {l['p99_us']:9.1f}")
    print("  batched q/s: " + ", ".join(f"{b['batch']}: {b['qps']:.0f}" for b in m['batches']))
PY
	tail -5 "$LOG"
} >"$OUT/summary.txt" 2>&1
rm -rf "$W" "$PTX"
tar czf "$OUT/waves.tgz" -C "$OUT" --exclude waves.tgz .
cat "$OUT/summary.txt"
