#!/usr/bin/env bash
# GPU machine run: why the GPU's sub-millisecond analytics (wordcount and
# sort on the compressed form) have slow stretches (docs/analytics.md, run
# 23). Run from the repository root with .device carried (gzip'd binary and
# corpora as for analytics.sh): OUT=$OUT bash scripts/device/analytics-stretch.sh
# For each corpus and task it runs `gpusearch analyze --engine gpu --repeat
# $REPEAT` with the Go runtime's GC trace on stderr (GODEBUG=gctrace=1)
# and an execution trace, each line stamped with the time, while nvidia-smi samples the GPU's clocks,
# performance state and power every 20 ms (reading them only). Everything
# goes into $OUT/stretch.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/gpusearch-out}
REPEAT=${REPEAT:-60}
R=$(mktemp -d)/stretch
mkdir -p "$OUT" "$R"
. scripts/device/lib.sh
unpack_device
nvidia-smi --query-gpu=timestamp,pstate,clocks.sm,clocks.mem,power.draw,utilization.gpu --format=csv -lms 20 >"$R/smi.csv" 2>&1 &
smi=$!
for c in ${CORPORA:-rustdoc rd16}; do
	for task in ${TASKS:-wordcount sort}; do
		echo "# $(date +%T.%N) $c $task" >>"$R/runs.log"
		GODEBUG=gctrace=1 timeout 60 .device/gpusearch analyze --engine gpu --task "$task" --discard \
			--repeat "$REPEAT" --trace "$R/$c-$task.trace" ".device/corpora/$c" 2>&1 |
			while IFS= read -r l; do echo "$(date +%T.%N) $l"; done >>"$R/runs.log"
		echo "# $(date +%T.%N) end" >>"$R/runs.log"
	done
done
kill $smi
tar czf "$OUT/stretch.tgz" -C "$(dirname "$R")" stretch
