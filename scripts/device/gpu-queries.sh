#!/usr/bin/env bash
# GPU machine run for the GPU query engine. From the repository
# root, with .device carried (built by `make device` on the dev box):
#   bash scripts/device/gpu-queries.sh
#   1. compile every kernel source to PTX (lib.sh's fresh_ptx) into a
#      scratch dir used through GPUSEARCH_PTX_DIR; query.ptx also goes to
#      $OUT/ptx/ to be committed; ptxas register/spill report of query.cu;
#   2. the query engine's GPU tests (tee $OUT/gpuq-test.log);
#   3. a 5M-document synthetic index (gen index, gpu-bp256) and 500 queries
#      (gen queries), 1M documents if the big one fails or runs out of time;
#   4. bench gpu queries (GPU vs exhaustive, bmw, daat; all and >1M-postings
#      queries; phases; batched q/s) and bench queries --engine
#      gpu,exhaustive,bmw,daat, modes and, or, k=10, JSON to $OUT;
#   5. a short summary last.
# Files under $OUT (6): ptx/query.ptx, gpuq-test.log, gpuq.log,
# bench-gpu-queries.json, bench-queries.json, summary.txt. The whole run
# stays under 8 minutes: each step has a timeout cut to what is left.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=${OUT:-/tmp/gpuq-out}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
BUDGET=${BUDGET:-460}
DOCS=${DOCS:-5000000}
mkdir -p "$OUT/ptx"
PTX=$(mktemp -d)
WORK=$(mktemp -d)
R=$WORK
LOG=$OUT/gpuq.log
. scripts/device/lib.sh
t0=$(date +%s)

stamp "machine"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv; "$NVCC" --version | tail -2; nproc; free -g | head -2; } >>"$LOG" 2>&1

stamp "ptx"
fresh_ptx "$PTX" >>"$LOG"
ptx_rc=$?
cat "$WORK/nvcc.log" >>"$LOG" 2>/dev/null
cp "$PTX/query.ptx" "$OUT/ptx/query.ptx" 2>/dev/null
timeout "$(tmo 60)" "$NVCC" -arch=sm_90 -std=c++17 -O3 -cubin -Xptxas -v -o "$WORK/query.cubin" gpu/kernels/query.cu >"$WORK/ptxas.log" 2>&1
cat "$WORK/ptxas.log" >>"$LOG"
if [ $ptx_rc -eq 0 ]; then
	export GPUSEARCH_PTX_DIR=$PTX
else
	stamp "no fresh PTX (see gpuq.log): the binaries' embedded PTX is used"
fi

stamp "gpu tests"
(cd gpu && timeout "$(tmo 200)" "$ROOT/.device/gpu.test" -test.v -test.timeout 195s \
	-test.run '^(TestDeviceInfo|TestEngine.*|TestQueryKernelConstants|TestKeyOrder|TestPlanQuery|TestGPUColumnReencode|TestLayout|TestPhases)$') \
	>"$OUT/gpuq-test.log" 2>&1
test_rc=$?
grep -E '^(--- |ok|FAIL|PASS)' "$OUT/gpuq-test.log"

stamp "gen index ($DOCS docs)"
timeout "$(tmo 200)" .device/gpusearch gen index --docs "$DOCS" --seed 1 --codec gpu-bp256 --out "$WORK/gidx" --quiet --json >>"$LOG" 2>&1
gen_rc=$?
if [ $gen_rc -ne 0 ]; then
	DOCS=1000000
	stamp "gen index failed (rc=$gen_rc); $DOCS docs instead"
	rm -rf "$WORK/gidx"
	timeout "$(tmo 120)" .device/gpusearch gen index --docs "$DOCS" --seed 1 --codec gpu-bp256 --out "$WORK/gidx" --quiet --json >>"$LOG" 2>&1
	gen_rc=$?
fi
timeout "$(tmo 60)" .device/gpusearch gen queries --index "$WORK/gidx" --n 500 --out "$WORK/queries.txt" >>"$LOG" 2>&1
du -sh "$WORK/gidx" >>"$LOG" 2>&1

stamp "bench gpu queries"
timeout "$(tmo 150)" .device/gpusearch bench gpu queries --index "$WORK/gidx" --queries "$WORK/queries.txt" \
	--mode and,or --k 10 --cpu exhaustive,bmw,daat --batch 1,8,32,128 --min-time 1s --json \
	>"$OUT/bench-gpu-queries.json" 2>>"$LOG"
bgq_rc=$?

stamp "bench queries"
timeout "$(tmo 150)" .device/gpusearch bench queries --index "$WORK/gidx" --queries "$WORK/queries.txt" \
	--engine gpu,exhaustive,bmw,daat --mode and,or --k 10 --min-time 1s --json \
	>"$OUT/bench-queries.json" 2>>"$LOG"
bq_rc=$?
stamp "done"

{
	echo "===== gpuq summary ($(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)) ====="
	echo "ptx: rc=$ptx_rc; query.ptx $(head -1 "$OUT/ptx/query.ptx" 2>/dev/null); kernels from ${GPUSEARCH_PTX_DIR:-the embedded PTX}"
	awk '/Compiling entry function/ { match($0, /'"'"'[^'"'"']+'"'"'/); f = substr($0, RSTART + 1, RLENGTH - 2) }
	     /spill stores/ { sp = $0; sub(/.*bytes stack frame, /, "", sp) }
	     /Used [0-9]+ registers/ { match($0, /Used [0-9]+ registers/); printf "  %-24s %s; %s\n", f, substr($0, RSTART + 5, RLENGTH - 5), sp }' "$WORK/ptxas.log"
	echo "tests: rc=$test_rc, $(grep -c -- '^--- PASS' "$OUT/gpuq-test.log") passed, $(grep -c -- '--- FAIL' "$OUT/gpuq-test.log") failed"
	grep -m 15 -E -- '--- FAIL|panic|_test.go:[0-9]+:' "$OUT/gpuq-test.log"
	echo "index: $DOCS docs, gen rc=$gen_rc; $(grep -m1 -E 'queries,' "$LOG")"
	echo "bench gpu queries: rc=$bgq_rc; bench queries: rc=$bq_rc"
	[ $bgq_rc -ne 0 ] && tail -5 "$LOG"
	python3 - "$OUT/bench-gpu-queries.json" "$OUT/bench-queries.json" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("no bench gpu queries JSON:", e); r = None
if r:
    print(f"{r['device']['name']}: {r['index']['docs']} docs, {r['index']['postings']} postings, k={r['k']}, big = over {r['big_postings']} postings")
    for m in r['modes']:
        print(f"mode {m['mode']}: {m['big_queries']} big of {r['queries']}; answers differing from exhaustive {m['mismatches']}/{m['checked']}, batch vs single {m['batch_differs']}")
        for l in m['latency']:
            print(f"  {l['engine']:<10} {l['subset']:<3} mean {l['mean_us']:9.1f} us  p50 {l['p50_us']:9.1f}  p99 {l['p99_us']:9.1f}  blocks {l['blocks_decoded']:8.1f}")
        print("  speedup (cpu/gpu mean): " + ", ".join(f"{s['versus']}/{s['subset']} {s['mean']:.2f}x" for s in m['speedups']))
        for p in m['phases']:
            print(f"  phases {p['subset']}: " + " ".join(f"{k} {v:.1f}" for k, v in p['us'].items()) + f" = {p['total_us']:.1f} us")
        print("  batched q/s: " + ", ".join(f"{b['batch']}: {b['qps']:.0f}" for b in m['batches']))
try:
    q = json.load(open(sys.argv[2]))
    for row in q['results']:
        print(f"bench queries {row['engine']:<10} {row['mode']:<3} threads {row['threads']:>2}: mean {row['mean_us']:9.1f} us p99 {row['p99_us']:9.1f} qps {row['qps']:9.0f}")
except Exception as e:
    print("no bench queries JSON:", e)
EOF
} >"$OUT/summary.txt" 2>&1
rm -rf "$WORK" "$PTX"
cat "$OUT/summary.txt"
