#!/usr/bin/env bash
# cuda-dev.sh [CACHE_DIR]: the CUDA headers the cuda build needs, without
# the toolkit. It prints the cgo settings on stdout (everything else goes to
# stderr), so that a shell takes them with
#
#   eval "$(bash scripts/cuda-dev.sh)" && go build -tags 'cuda prod' ./cmd/gpusearch
#
# The cuda build compiles gorgonia.org/cu, which needs cuda.h to compile and
# libcuda.so to link. Both come from Debian 12's nvidia-cuda-dev package
# (CUDA 11.8, in non-free): the script downloads that one package with a
# private apt state (the system's sources and lists are left alone) and keeps
# two files of it in CACHE_DIR (default ~/.cache/gpusearch/cuda-dev); later
# runs only print. The libcuda.so kept is the link stub: the real library
# comes with the NVIDIA driver on the machine that runs the binary.
#
# The headers must be CUDA 11.x or 12.x: gorgonia.org/cu v0.9.6 does not
# compile against CUDA 13's cuda.h, where cuCtxCreate, cuMemAdvise,
# cuMemPrefetchAsync and cuGraph*Dependencies/Edges changed signatures. The
# 11.8 API runs on current drivers (tested on driver 580, CUDA 13).
#
# Needs apt-get, dpkg-deb and Debian's archive keyring (a Debian 12 machine
# has them); DEBIAN_MIRROR picks the mirror (default deb.debian.org).
set -euo pipefail

dir=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/gpusearch/cuda-dev}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

fetch() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/parts" "$tmp/deb"
	echo "deb [arch=amd64 signed-by=$keyring] $mirror bookworm non-free" >"$tmp/sources.list"
	local apt=(
		-o Dir::Etc::SourceList="$tmp/sources.list"
		-o Dir::Etc::SourceParts="$tmp/parts"
		-o Dir::State::Lists="$tmp/lists"
		-o Dir::Cache="$tmp/cache"
		-o Acquire::Languages=none
		-o APT::Sandbox::User="$(id -un)"
	)
	echo "cuda-dev: downloading Debian's nvidia-cuda-dev from $mirror" >&2
	apt-get "${apt[@]}" -qq update >&2
	(cd "$tmp/deb" && apt-get "${apt[@]}" -qq download nvidia-cuda-dev:amd64 >&2)
	dpkg-deb --fsys-tarfile "$tmp"/deb/nvidia-cuda-dev_*.deb |
		tar -x -C "$tmp" ./usr/include/cuda.h ./usr/lib/x86_64-linux-gnu/stubs/libcuda.so
	local version
	version=$(awk '$1 == "#define" && $2 == "CUDA_VERSION" {print $3}' "$tmp/usr/include/cuda.h")
	if [ -z "$version" ] || [ "$version" -ge 13000 ]; then
		echo "cuda-dev: cuda.h has CUDA_VERSION ${version:-none}; gorgonia.org/cu needs 11.x or 12.x" >&2
		return 1
	fi
	mkdir -p "$dir/include" "$dir/stubs"
	cp "$tmp/usr/include/cuda.h" "$dir/include/"
	cp "$tmp/usr/lib/x86_64-linux-gnu/stubs/libcuda.so" "$dir/stubs/"
	echo "cuda-dev: cuda.h (CUDA_VERSION $version) and the libcuda.so stub in $dir" >&2
}

if [ ! -f "$dir/include/cuda.h" ] || [ ! -f "$dir/stubs/libcuda.so" ]; then
	fetch
fi
printf 'export CGO_ENABLED=1 CGO_CFLAGS=%q CGO_LDFLAGS=%q\n' "-I$dir/include" "-L$dir/stubs"
