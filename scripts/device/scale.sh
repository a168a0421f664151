#!/usr/bin/env bash
# GPU machine run for query latency and build cost at scale. Run from the repository root with
# .device carried:   bash scripts/device/scale.sh
#
# For each size in $SIZES (default 10^5, 10^6, 5x10^6, 2.5x10^7 documents):
#   1. gpusearch gen index --docs N (Gov2-like defaults, URL order, bp128):
#      $OUT/gen-N.json (build time, peak RSS, size, bits per docid/freq);
#   2. gpusearch gen queries --index ... --n Q: $OUT/queries-N.txt and
#      $OUT/queries-N.log (mean terms and postings per query);
#   3. gpusearch bench queries on the CPU engines (exhaustive, bmw, maxscore;
#      AND and OR, top-10; 1 thread and all cores), and the GPU engine when
#      the binary accepts --engine gpu: $OUT/bench-N-ENGINE.json.
# Then, while time is left, 10^6 documents again in random order and with
# other codecs, for the size-per-codec table: $OUT/gen-1000000-ORDER-CODEC.json.
# A size is skipped (and says so in $OUT/summary.txt) when the time left is
# below its estimate, so the run stays under 9 minutes; the estimate for
# 2.5x10^7 documents is extrapolated from the measured 5x10^6 run (see
# estimate below). SIZES=25000000 runs that size alone, with the whole budget.
# Needs no Go: .device/gpusearch is built on the dev box.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpusearch-scale}
BIN=${BIN:-.device/gpusearch}
WORK=${WORK:-/tmp/gpusearch-scale-work}
SIZES=${SIZES:-"100000 1000000 5000000 25000000"}
BUDGET=${BUDGET:-530} # seconds for the whole run
CODEC=${CODEC:-bp128}
mkdir -p "$OUT" "$WORK"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$OUT/summary.txt"; }
left() { echo $((BUDGET - ($(date +%s) - t0))); }

# estimate N: seconds for generating and benchmarking N documents. Before
# any size of at least 10^6 documents has run: 25 s plus 11 s per million
# documents (the shared 2-core dev box took 64 s for 10^6 documents, about
# 55 CPU-seconds, and the single index writer bounds generation on many
# cores). After one has run, its measured seconds per million documents,
# plus 15%, scale to N; the benchmarks add about 3 s per million documents
# at the query counts below.
rate=""
estimate() {
	if [ -n "$rate" ]; then
		awk -v r="$rate" -v n="$1" 'BEGIN { printf "%d", 25 + 1.15 * r * n / 1e6 + 3 * n / 1e6 }'
	else
		echo $((25 + $1 * 11 / 1000000))
	fi
}

# queries N: how many queries to draw (fewer on large indexes, where the
# exhaustive OR costs tens of milliseconds per query).
queries() {
	if [ "$1" -ge 20000000 ]; then echo 100
	elif [ "$1" -ge 4000000 ]; then echo 200
	else echo 1000
	fi
}

{
	echo "date: $(date -u +%FT%TZ)"
	echo "cpus: $(nproc)"
	grep -m1 'model name' /proc/cpuinfo
	grep MemTotal /proc/meminfo
	nvidia-smi -L 2>/dev/null || echo "nvidia-smi: none"
	df -h "$WORK" | tail -1
} >"$OUT/machine.txt" 2>&1
stamp "machine: $(nproc) cpus; sizes: $SIZES; budget ${BUDGET}s"

gpu=no
prev=""
for n in $SIZES; do
	need=$(estimate "$n")
	if [ "$(left)" -lt "$need" ]; then
		stamp "skip $n documents: ${need}s estimated, $(left)s left"
		continue
	fi
	dir="$WORK/g$n"
	stamp "gen index $n"
	if ! timeout "$(left)" "$BIN" gen index --docs "$n" --seed 1 --codec "$CODEC" --out "$dir" --quiet --json \
		>"$OUT/gen-$n.json" 2>"$OUT/gen-$n.err"; then
		stamp "gen index $n failed: $(tail -1 "$OUT/gen-$n.err")"
		break
	fi
	stamp "gen index $n done: $(grep -E '"(postings|seconds|bits_per_docid|peak_rss_mb)"' "$OUT/gen-$n.json" | tr -d ' \n')"
	if [ "$n" -ge 1000000 ]; then
		secs=$(sed -n 's/.*"seconds": \([0-9.]*\).*/\1/p' "$OUT/gen-$n.json" | head -1)
		rate=$(awk -v s="$secs" -v n="$n" 'BEGIN { print s / (n / 1e6) }')
	fi
	# The previous size's index is no longer needed: free the disk.
	[ -n "$prev" ] && rm -rf "$prev"
	prev=$dir
	q=$(queries "$n")
	"$BIN" gen queries --index "$dir" --n "$q" --seed 1 --out "$OUT/queries-$n.txt" 2>"$OUT/queries-$n.log"
	stamp "gen queries $n: $(cat "$OUT/queries-$n.log")"
	# One run per engine, so that a timeout loses one engine's rows only.
	for e in exhaustive bmw maxscore; do
		timeout "$(left)" "$BIN" bench queries --index "$dir" --queries "$OUT/queries-$n.txt" \
			--engine "$e" --mode and,or --k 10 --min-time 1ms --json \
			>"$OUT/bench-$n-$e.json" 2>"$OUT/bench-$n-$e.err"
		stamp "bench queries $n $e: exit $?"
	done
	head -1 "$OUT/queries-$n.txt" >"$WORK/probe.txt"
	if [ "$gpu" = no ] && "$BIN" bench queries --index "$dir" --queries "$WORK/probe.txt" \
		--engine gpu --mode or --min-time 1ms --threads 1 --json >/dev/null 2>"$OUT/gpu-probe.err"; then
		gpu=yes
	fi
	if [ "$gpu" = yes ]; then
		timeout "$(left)" "$BIN" bench queries --index "$dir" --queries "$OUT/queries-$n.txt" \
			--engine gpu --mode and,or --k 10 --min-time 1ms --threads 1 --json \
			>"$OUT/bench-$n-gpu.json" 2>"$OUT/bench-$n-gpu.err"
		stamp "bench queries $n gpu: exit $?"
	fi
done
rm -rf "$prev"
# Size per codec and docid order at 10^6 documents, while time is left.
for variant in "random bp128" "url optpfor" "url partitioned-elias-fano" "url streamvbyte"; do
	set -- $variant
	if [ "$(left)" -lt 40 ]; then
		stamp "skip variant $1 $2: $(left)s left"
		continue
	fi
	timeout "$(left)" "$BIN" gen index --docs 1000000 --seed 1 --order "$1" --codec "$2" --out "$WORK/v" --quiet --json \
		>"$OUT/gen-1000000-$1-$2.json" 2>"$OUT/gen-1000000-$1-$2.err"
	stamp "gen index 1000000 $1 $2: $(grep -E '"bits_per_(docid|freq)"' "$OUT/gen-1000000-$1-$2.json" | tr -d ' \n')"
	rm -rf "$WORK/v"
done
[ "$gpu" = no ] && stamp "no GPU engine in bench queries: $(tail -1 "$OUT/gpu-probe.err" 2>/dev/null)"
rm -rf "$WORK"
stamp "done"
