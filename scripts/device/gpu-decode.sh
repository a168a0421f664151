#!/usr/bin/env bash
# GPU machine run for the decode back end. Run from the repository
# root with .device carried: bash scripts/device/gpu-decode.sh
#   1. compile every kernel source to PTX with the source-sha256 header
#      (as make ptx) into $OUT/ptx/, plus a ptxas resource report and SASS
#      summary of decode.cu, plus two register-cap variants of decode.ptx
#      (MIN_CTAS 8 and 16);
#   2. run every GPU test binary against $OUT/ptx (GPUSEARCH_PTX_DIR; lib.sh's
#      gpu_tests);
#   3. run bench gpu decode (Table 3) to $OUT/gpu-decode.json, and the
#      variants on the 2^25 lists of the hot formats;
#   4. print a short summary last.
# Needs no Go: the test binaries and .device/gpusearch are built on the
# dev box with `make device`. Every step has a timeout; the whole run stays
# under 8 minutes.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpusearch-out}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
CUOBJDUMP=${CUOBJDUMP:-$(dirname "$NVCC")/cuobjdump}
R=$OUT
BUDGET=450
LOG=/dev/null
mkdir -p "$OUT/ptx"
. scripts/device/lib.sh
t0=$(date +%s)

stamp "machine"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv; "$NVCC" --version | tail -2; } >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

stamp "ptx"
fresh_ptx "$OUT/ptx"
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
TEST_TIMEOUT=$(tmo 180) gpu_tests >"$OUT/tests.txt"

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
echo "tests:"
cat "$OUT/tests.txt"
grep -m 20 -E -- '--- FAIL|panic|Error|error:' "$OUT"/test-*.log
grep -m 3 -E 'TestDeviceInfo|copy \(kernel' "$OUT/test-gpu.log"
echo "bench: rc=$bench_rc"
[ $bench_rc -ne 0 ] && tail -5 "$OUT/gpu-decode.log"
sed -n '/copy bound/,$p' "$OUT/gpu-decode.log"
for v in 8 16; do
	echo "variant MIN_CTAS=$v (2^25):"
	grep -E '^ +gpu-' "$OUT/variant-minctas$v.log" | sed 's/^ */  /'
done
