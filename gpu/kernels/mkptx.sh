#!/bin/sh
# mkptx.sh SRC.cu OUT.ptx [NVCC_FLAGS...]: compiles one kernel source to
# PTX for Hopper (sm_90) and prepends the line "// source-sha256: <hex>"
# with the source's sha256, which internal/cuda's TestPTXFresh checks against the
# .cu. make ptx and .device/run.sh both use it. $NVCC names the compiler
# (default nvcc); extra arguments go to it (e.g. -DMIN_CTAS=16).
set -eu
src=$1
out=$2
shift 2
sum=$(sha256sum "$src" | cut -d' ' -f1)
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
"${NVCC:-nvcc}" -arch=sm_90 -std=c++17 -O3 -ptx "$@" -o "$tmp" "$src"
{
	printf '// source-sha256: %s\n' "$sum"
	cat "$tmp"
} >"$out"
