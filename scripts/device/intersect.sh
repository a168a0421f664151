#!/usr/bin/env bash
# GPU machine run for issue 7's intersection algorithms. From the
# repository root, with .device carried (`make device`):
#   OUT=... bash scripts/device/intersect.sh
#   1. every gpu/kernels/*.cu to PTX in a scratch directory the binaries
#      load (GPUSEARCH_PTX_DIR); query.ptx is copied to $OUT to be committed;
#   2. the gpu package's tests on the GPU;
#   3. bench intersect on the CPU and on the GPU, default shapes and with
#      --max-len 10000000, JSON.
# $OUT gets query.ptx and intersect.tgz (everything else).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=${OUT:-/tmp/intersect-out}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
B=.device/gpusearch
R=$(mktemp -d)
PTX=$(mktemp -d)
mkdir -p "$OUT"
{ nvidia-smi -L; nproc; "$NVCC" --version | tail -1; } >"$R/machine.txt" 2>&1
for cu in gpu/kernels/*.cu; do
	NVCC=$NVCC sh gpu/kernels/mkptx.sh "$cu" "$PTX/$(basename "$cu" .cu).ptx" >>"$R/nvcc.log" 2>&1
done
cp "$PTX/query.ptx" "$OUT/"
export GPUSEARCH_PTX_DIR=$PTX
(cd gpu && timeout 200 "$ROOT/.device/gpu.test" -test.v -test.timeout 195s) >"$R/gpu-test.log" 2>&1
echo "tests rc=$?: $(grep -c -- '^--- PASS' "$R/gpu-test.log") passed; $(grep -- '--- FAIL' "$R/gpu-test.log" | tr '\n' ' ')"
for e in cpu gpu; do
	timeout 120 $B bench intersect --engine $e --json >"$R/intersect-$e.json" 2>>"$R/intersect.log"
	echo "bench intersect $e rc=$?"
	timeout 120 $B bench intersect --engine $e --max-len 10000000 --json >"$R/intersect-$e-10m.json" 2>>"$R/intersect.log"
	echo "bench intersect $e 10m rc=$?"
done
tail -3 "$R/intersect.log"
tar czf "$OUT/intersect.tgz" -C "$R" .
rm -rf "$R" "$PTX"
