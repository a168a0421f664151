#!/usr/bin/env bash
# GPU machine run for the decode back end. Run from the repository
# root with .device carried: bash scripts/device/gpu-decode.sh
#   1. compile gpu/kernels/decode.cu to PTX with the source-sha256 header
#      (as make ptx) into $OUT/ptx/, plus a ptxas resource report and SASS
#      summary, plus two register-cap variants (MIN_CTAS 8 and 16);
#   2. run the GPU tests against $OUT/ptx (GPUSEARCH_PTX_DIR);
#   3. run bench gpu decode (Table 3) to $OUT/gpu-decode.json, and the
#      variants on the 2^25 lists of the hot formats;
#   4. print a short summary last.
# Needs no Go: .device/gpu.test and .device/gpusearch are built on the dev
# box with `make device`. Every step has a timeout; the whole run stays
# under 8 minutes.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=${OUT:-/tmp/gpusearch-out}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
CUOBJDUMP=${CUOBJDUMP:-$(dirname "$NVCC")/cuobjdump}
mkdir -p "$OUT/ptx"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0))s] $*"; }
# tmo N: a step's timeout, N seconds or what is left of the 450 s budget.
tmo() {
	local left=$((450 - ($(date +%s) - t0)))
	[ $left -lt 5 ] && left=5
	echo $(($1 < left ? $1 : left))
}

stamp "machine"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv; "$NVCC" --version | tail -2; } >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

stamp "ptx"
NVCC=$NVCC timeout "$(tmo 120)" sh gpu/kernels/mkptx.sh gpu/kernels/decode.cu "$OUT/ptx/decode.ptx" >"$OUT/nvcc.log" 2>&1
ptx_rc=$?
for v in 8 16; do
	mkdir -p "$OUT/ptx-minctas$v"
	NVCC=$NVCC timeout "$(tmo 60)" sh gpu/kernels/mkptx.sh gpu/kernels/decode.cu "$OUT/ptx-minctas$v/decode.ptx" -DMIN_CTAS=$v >>"$OUT/nvcc.log" 2>&1
done
stamp "ptxas report"
timeout "$(tmo 90)" "$NVCC" -arch=sm_90 -std=c++17 -O3 -cubin -Xptxas -v -o "$OUT/decode.cubin" gpu/kernels/decode.cu >"$OUT/ptxas.log" 2>&1
timeout "$(tmo 30)" "$CUOBJDUMP" -sass "$OUT/decode.cubin" >"$OUT/decode.sass" 2>&1

export GPUSEARCH_PTX_DIR=$OUT/ptx
stamp "gpu tests"
(cd gpu && timeout "$(tmo 180)" "$ROOT/.device/gpu.test" -test.v -test.timeout 175s) >"$OUT/gpu-test.log" 2>&1
test_rc=$?

stamp "bench gpu decode"
timeout "$(tmo 200)" .device/gpusearch bench gpu decode --json >"$OUT/gpu-decode.json" 2>"$OUT/gpu-decode.log"
bench_rc=$?
for v in 8 16; do
	stamp "variant MIN_CTAS=$v"
	GPUSEARCH_PTX_DIR=$OUT/ptx-minctas$v timeout "$(tmo 45)" .device/gpusearch bench gpu decode --json \
		--codecs gpu-bp256,gpu-bp128,gpu-vbyte128,gpu-vbyte1024 --min-log 25 --max-log 25 --copy-mb 256 \
		>"$OUT/variant-minctas$v.json" 2>"$OUT/variant-minctas$v.log"
done

stamp "done"
echo
echo "===== summary ====="
echo "ptx: rc=$ptx_rc ($(head -c 80 "$OUT/ptx/decode.ptx" 2>/dev/null | head -1))"
[ $ptx_rc -ne 0 ] && tail -20 "$OUT/nvcc.log"
echo "ptxas (registers, spills) per kernel:"
awk '/Compiling entry function/ { match($0, /'"'"'[^'"'"']+'"'"'/); f = substr($0, RSTART + 1, RLENGTH - 2) }
     /spill stores/ { sp = $0; sub(/.*bytes stack frame, /, "", sp) }
     /Used [0-9]+ registers/ { match($0, /Used [0-9]+ registers/); printf "  %-26s %s; %s\n", f, substr($0, RSTART + 5, RLENGTH - 5), sp }' "$OUT/ptxas.log"
echo "SASS 128-bit global loads/stores:"
awk '/Function :/ { f = $3 } /LDG.E.128/ { l[f]++ } /STG.E.128/ { s[f]++ } END { for (k in l) printf "  %-26s LDG.128 %d STG.128 %d\n", k, l[k], s[k] }' "$OUT/decode.sass" | sort
echo "tests: rc=$test_rc, $(grep -c -- '^--- PASS' "$OUT/gpu-test.log") top-level passed, $(grep -c -- '--- FAIL' "$OUT/gpu-test.log") failures"
grep -m 20 -E -- '--- FAIL|panic|Error|error:' "$OUT/gpu-test.log"
grep -m 3 -E 'TestDeviceInfo|copy \(kernel' "$OUT/gpu-test.log"
echo "bench: rc=$bench_rc"
[ $bench_rc -ne 0 ] && tail -5 "$OUT/gpu-decode.log"
sed -n '/copy bound/,$p' "$OUT/gpu-decode.log"
for v in 8 16; do
	echo "variant MIN_CTAS=$v (2^25):"
	grep -E '^ +gpu-' "$OUT/variant-minctas$v.log" | sed 's/^ */  /'
done
