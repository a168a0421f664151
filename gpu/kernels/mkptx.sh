#!/bin/sh
# mkptx.sh SRC.cu OUT.ptx [NVCC_FLAGS...]: compiles one kernel source to
# PTX for Hopper (sm_90) and prepends the line "// source-sha256: <hex>"
# with the sha256 of the source followed by the headers (*.cuh, in name
# order) of its directory, which internal/cuda's TestPTXFresh checks. make ptx and .device/run.sh both use it. $NVCC names the compiler
# (default nvcc); extra arguments go to it (e.g. -DMIN_CTAS=16).
set -eu
src=$1
out=$2
shift 2
sum=$(cat "$src" $(ls "$(dirname "$src")"/*.cuh 2>/dev/null | LC_ALL=C sort) | sha256sum | cut -d' ' -f1)
tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
"${NVCC:-nvcc}" -arch=sm_90 -std=c++17 -O3 -ptx "$@" -o "$tmp" "$src"
{
	printf '// source-sha256: %s\n' "$sum"
	cat "$tmp"
} >"$out"
