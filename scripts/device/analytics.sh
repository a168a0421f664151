#!/usr/bin/env bash
# GPU machine run for analytics on compressed corpora. Run from
# the repository root with .device carried: OUT=$OUT bash scripts/device/analytics.sh
# Prepare on the dev box:
#   make device        (the GPU test binaries and .device/gpusearch, cuda build)
#   mkdir -p .device/corpora
#   gpusearch compress --out .device/corpora/sample examples/crawl
#   gpusearch compress --out .device/corpora/rustdoc /usr/share/doc/rust-doc/html
#   (any other compressed corpora: one directory each; rd16 as in
#   docs/analytics.md, with scripts/analytics/regroup.go)
# Optionally, for an A/B in the same call, a second cuda build (say, of the
# last commit) as .device/gpusearch-base: it runs the GPU rows again with
# its own embedded PTX. Any .device/*.gz and .device/corpora/*.tgz or
# .tar.xz are unpacked first (the carry limit is 64 MiB).
# Steps, each with a timeout, the whole under 9 minutes:
#   1. compile every kernel source to PTX (copied to $OUT, with the
#      source-sha256 header, ready to commit) and run every GPU test binary
#      against it (lib.sh's fresh_ptx_and_tests), and a ptxas resource
#      report of analytics.cu;
#   2. per corpus and task: gpusearch analyze on the GPU (its own choice of
#      traversal, then each traversal asked for; --repeat $GPU_REPEAT, 5)
#      and on the CPU (--repeat 3), each on the compressed corpus and on
#      the plain one, one key=value line per run, into
#      analytics-<corpus>.log; with a base binary, its GPU rows into
#      analytics-<corpus>-base.log. MODES (';'-separated analyze flags)
#      replaces that list, e.g. MODES='--engine gpu;--engine gpu --plain;
#      --engine gpu --plain --text' for the GPU's three forms;
#   3. print the best total per corpus, task, engine, form and traversal last.
# TASKS (space-separated) limits step 2 to some tasks; TESTS=0 skips step
# 1 (the binaries then use their embedded PTX); ARCHIVE names the archive
# (default analytics).
# $OUT gets the PTX and analytics.tgz (everything else, console.log included).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpusearch-out}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
R=$(mktemp -d)/analytics
GPU_REPEAT=${GPU_REPEAT:-5}
BUDGET=${BUDGET:-520}
LOG=/dev/null # stamp's lines reach console.log through the tee below
mkdir -p "$OUT" "$R"
. scripts/device/lib.sh
unpack_device
t0=$(date +%s)

{
	if [ "${TESTS:-1}" = 1 ]; then
		stamp "ptx and gpu tests"
		fresh_ptx_and_tests
		timeout "$(tmo 60)" "$NVCC" -arch=sm_90 -std=c++17 -O3 -cubin -Xptxas -v -o "$R/analytics.cubin" analytics/gpu/kernels/analytics.cu >"$R/ptxas-analytics.log" 2>&1
		rm -f "$R/analytics.cubin"
	fi

	for dir in .device/corpora/*/; do
		[ -d "$dir" ] || continue
		name=$(basename "$dir")
		log=$R/analytics-$name.log
		stamp "corpus $name"
		for task in ${TASKS:-wordcount sort invindex termvector rankedinv seqcount}; do
			IFS=';' read -ra modes <<<"${MODES:---engine gpu;--engine gpu --traversal topdown;--engine gpu --traversal bottomup;--engine gpu --plain;--engine cpu;--engine cpu --plain}"
			for mode in "${modes[@]}"; do
				n=$GPU_REPEAT
				case $mode in *cpu*) n=3 ;; esac
				echo "# $task $mode" >>"$log"
				timeout "$(tmo 60)" .device/gpusearch analyze --task $task $mode --discard --repeat $n "$dir" >>"$log" 2>&1
				if [ -x .device/gpusearch-base ] && [ "${mode#--engine gpu}" != "$mode" ]; then
					echo "# $task $mode" >>"${log%.log}-base.log"
					env -u GPUSEARCH_PTX_DIR timeout "$(tmo 60)" .device/gpusearch-base analyze --task $task $mode \
						--discard --repeat $n "$dir" >>"${log%.log}-base.log" 2>&1
				fi
			done
		done
	done

	stamp "summary"
	for log in "$R"/test-*.log; do
		[ -f "$log" ] && grep -E '^(--- FAIL|FAIL|ok|PASS)' "$log" | head -20
	done
	for log in "$R"/analytics-*.log; do
		[ -f "$log" ] || continue
		echo "== $(basename "$log" .log): median and best total_ms (kernels_ms of the median run) per task, engine, form, traversal"
		sed -n 's/.*task=\([a-z]*\) engine=\([a-z]*\) form=\([a-z]*\) traversal=\([a-z]*\).*kernels_ms=\([0-9.]*\) total_ms=\([0-9.]*\).*/\1 \2 \3 \4 \6 \5/p' "$log" |
			sort -k1,1 -k2,2 -k3,3 -k4,4 -k5,5n | awk '
			function flush() { if (n) printf "%-11s %-4s %-10s %-8s %10s ms  best %10s ms  (kernels %s ms, %d runs)\n", k[1], k[2], k[3], k[4], t[int((n+1)/2)], t[1], m[int((n+1)/2)], n }
			{ key = $1" "$2" "$3" "$4; if (key != last) { flush(); n = 0; last = key; split(key, k) } n++; t[n] = $5; m[n] = $6 }
			END { flush() }'
	done
} 2>&1 | tee "$R/console.log"
tar czf "$OUT/${ARCHIVE:-analytics}.tgz" -C "$(dirname "$R")" analytics
