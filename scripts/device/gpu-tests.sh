#!/usr/bin/env bash
# GPU machine run of every GPU test on fresh PTX. From the repository
# root, with .device carried (`make device`):
#   OUT=... bash scripts/device/gpu-tests.sh
# compiles every kernel source (gpu/kernels, analytics/gpu/kernels) to PTX
# in a scratch directory the tests load (GPUSEARCH_PTX_DIR), then runs the
# test binaries of gpu, analytics/gpu and internal/cuda, each from its
# package directory (lib.sh's fresh_ptx_and_tests). $OUT gets the PTX (to
# commit), machine.txt, nvcc.log and a log per binary; a verdict line per
# binary is printed. TEST_TIMEOUT (seconds, 200) bounds each binary.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpu-tests-out}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
R=$OUT
mkdir -p "$OUT"
. scripts/device/lib.sh
unpack_device
fresh_ptx_and_tests
