#!/usr/bin/env bash
# GPU machine run, its CPU only: the SIMD decoders beside the pure-Go
# ones (docs/codecs.md), every codec of codecplugins/internal/simdbench at
# every SIMD level, pinned to one core of a quiet host. From the
# repository root with .device carried (`make device`):
#   OUT=... bash scripts/device/codecs-simd.sh
# BENCH (SIMD) picks the benchmarks, COUNT (3) the runs of each, CPU (2)
# the core. $OUT gets cpu.txt and simd.txt (go test -bench output), and
# libsvb.txt where .device/libsvb.test is there (`make device-libsvb`):
# streamvbyte beside libstreamvbyte on the same core.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/codecs-simd-out}
mkdir -p "$OUT"
lscpu >"$OUT/cpu.txt"
bin=$(pwd)/.device/simdbench.test
(cd codecplugins/internal/simdbench &&
	taskset -c "${CPU:-2}" "$bin" -test.run XXX -test.bench "${BENCH:-SIMD}" \
		-test.benchtime 200ms -test.count "${COUNT:-3}") >"$OUT/simd.txt" 2>&1
echo "codecs-simd: $(grep -c '^BenchmarkSIMD' "$OUT/simd.txt") results"
if [ -x .device/libsvb.test ]; then
	lib=$(pwd)/.device/libsvb.test
	(cd codecplugins/varint/internal/libsvb &&
		taskset -c "${CPU:-2}" "$lib" -test.run . -test.bench Decode \
			-test.benchtime 200ms -test.count "${COUNT:-3}") >"$OUT/libsvb.txt" 2>&1
	echo "codecs-simd: $(grep -c '^BenchmarkDecode' "$OUT/libsvb.txt") libstreamvbyte results"
fi
