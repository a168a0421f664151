#!/usr/bin/env bash
# GPU machine run for analytics on compressed corpora (issue 11). Run from
# the repository root with .device carried: bash scripts/device/analytics.sh
# Prepare on the dev box:
#   make device        (.device/gpu.test and .device/gpusearch, cuda build)
#   mkdir -p .device/corpora
#   gpusearch compress --out .device/corpora/sample examples/crawl
#   gpusearch compress --out .device/corpora/rustdoc /usr/share/doc/rust-doc/html
#   (any other compressed corpora: one directory each)
# Steps, each with a timeout, the whole under 8 minutes:
#   1. compile gpu/kernels/analytics.cu and decode.cu to PTX into $OUT/ptx
#      (mkptx.sh: with the source-sha256 header, ready to commit), and a
#      ptxas resource report;
#   2. run the GPU analytics tests against that PTX (GPUSEARCH_PTX_DIR);
#   3. per corpus and task: gpusearch analyze on the GPU, on the CPU, and
#      the CPU plain baseline, --repeat 5, one key=value line per run, into
#      $OUT/analytics-<corpus>.log;
#   4. print the best total per corpus, task and engine last.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=${OUT:-/tmp/gpusearch-out}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$OUT/ptx"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0))s] $*"; }
tmo() {
	local left=$((450 - ($(date +%s) - t0)))
	[ $left -lt 5 ] && left=5
	echo $(($1 < left ? $1 : left))
}

stamp "machine"
{ nvidia-smi -L; "$NVCC" --version | tail -2; nproc; } >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

stamp "ptx"
for k in analytics decode; do
	NVCC=$NVCC timeout "$(tmo 120)" sh gpu/kernels/mkptx.sh gpu/kernels/$k.cu "$OUT/ptx/$k.ptx" >>"$OUT/nvcc.log" 2>&1 || echo "nvcc $k failed (see nvcc.log)"
done
timeout "$(tmo 60)" "$NVCC" -arch=sm_90 -std=c++17 -O3 -cubin -Xptxas -v -o "$OUT/analytics.cubin" gpu/kernels/analytics.cu >"$OUT/ptxas-analytics.log" 2>&1
export GPUSEARCH_PTX_DIR=$OUT/ptx

stamp "gpu analytics tests"
(cd gpu && timeout "$(tmo 150)" "$ROOT/.device/gpu.test" -test.run 'TestAnalytics|TestDeviceInfo' -test.v -test.timeout 145s) >"$OUT/gpu-analytics-test.log" 2>&1
test_rc=$?

for dir in .device/corpora/*/; do
	[ -d "$dir" ] || continue
	name=$(basename "$dir")
	log=$OUT/analytics-$name.log
	stamp "corpus $name"
	for task in wordcount sort invindex termvector rankedinv seqcount; do
		for mode in "--engine gpu" "--engine gpu --plain" "--engine cpu" "--engine cpu --plain"; do
			case "$task $mode" in "seqcount --engine gpu"*) continue ;; esac
			echo "# $task $mode" >>"$log"
			timeout "$(tmo 60)" .device/gpusearch analyze --task $task $mode --discard --repeat 3 "$dir" >>"$log" 2>&1
		done
	done
done

stamp "summary"
echo "gpu analytics tests: rc=$test_rc (log: gpu-analytics-test.log)"
grep -E '^(--- FAIL|FAIL|ok|PASS)' "$OUT/gpu-analytics-test.log" | head -20
for log in "$OUT"/analytics-*.log; do
	[ -f "$log" ] || continue
	echo "== $(basename "$log" .log): best total_ms (kernels_ms) per task, engine, form"
	sed -n 's/.*task=\([a-z]*\) engine=\([a-z]*\) form=\([a-z]*\).*kernels_ms=\([0-9.]*\) total_ms=\([0-9.]*\).*/\1 \2 \3 \5 \4/p' "$log" |
		sort -k1,1 -k2,2 -k3,3 -k4,4n | awk '!seen[$1" "$2" "$3]++ {printf "%-11s %-4s %-10s %10s ms  (kernels %s ms)\n", $1, $2, $3, $4, $5}'
done
