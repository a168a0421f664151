#!/usr/bin/env bash
# GPU machine run for intersection algorithms. From the
# repository root, with .device carried (`make device`):
#   OUT=... bash scripts/device/intersect.sh
#   1. every kernel source to PTX in a scratch directory the binaries
#      load (GPUSEARCH_PTX_DIR); the PTX is copied to $OUT to be committed;
#   2. every GPU test binary (lib.sh's fresh_ptx_and_tests);
#   3. bench intersect on the CPU and on the GPU, default shapes and with
#      --max-len 10000000, JSON.
# $OUT gets the PTX and intersect.tgz (everything else).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/intersect-out}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
B=.device/gpusearch
R=$(mktemp -d)
mkdir -p "$OUT"
. scripts/device/lib.sh
fresh_ptx_and_tests
for e in cpu gpu; do
	timeout 120 $B bench intersect --engine $e --json >"$R/intersect-$e.json" 2>>"$R/intersect.log"
	echo "bench intersect $e rc=$?"
	timeout 120 $B bench intersect --engine $e --max-len 10000000 --json >"$R/intersect-$e-10m.json" 2>>"$R/intersect.log"
	echo "bench intersect $e 10m rc=$?"
done
tail -3 "$R/intersect.log"
tar czf "$OUT/intersect.tgz" -C "$R" .
rm -rf "$R"
