#!/usr/bin/env bash
# GPU machine run: the CPU engines of two or more builds side by side,
# alone and inside the scheduler (issue 10). From the repository root,
# with .device carried: CUDA builds .device/gpusearch ("new") and
# .device/gpusearch-NAME for every other NAME (say, old: the commit
# before), each perhaps gzip'd (.gz, unpacked first), then
#   OUT=... [QUERIES='old new old new'] [FITS='old new'] [SWEEPS=...] bash scripts/device/cpu-ab.sh
# On lib.sh's scheduling set (2x10^6 documents, gpu-bp256, seed 2; 600
# queries, seed 3: the first 400 fit, the last 200 load):
#   1. bench queries --engine bmw,maxscore --mode or on the load queries,
#      1 thread and 16, for each build of QUERIES in turn (2 s a row);
#   2. bench fit with each build of FITS (its own cost model,
#      model-NAME.json);
#   3. bench load --sweep (3 s a rate, 5 bisections) for each of SWEEPS
#      (';'-separated "NAME POLICY [flags]"), each build with its own
#      model.
# Everything goes to $OUT/cpu-ab.tgz, packed again after every step.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/cpu-ab-out}
BUDGET=${BUDGET:-570}
SWEEPS=${SWEEPS:-new cpu --rate 16000;old cpu --rate 16000;new hybrid;old hybrid;new hybrid;old hybrid;new gpu --rate 32000}
R=$(mktemp -d)
W=$(mktemp -d)
LOG=$R/cpu-ab.log
B=.device/gpusearch
t0=$(date +%s)
mkdir -p "$OUT"
. scripts/device/lib.sh
pack() { tar czf "$OUT/cpu-ab.tgz" -C "$R" .; }
bin() { [ "$1" = new ] && echo .device/gpusearch || echo ".device/gpusearch-$1"; }
unpack_device

stamp "gen"
scheduling_set
for v in ${QUERIES:-old new old new}; do
	stamp "bench queries ($v)"
	timeout "$(tmo 60)" $(bin $v) bench queries --index "$W/s" --queries "$W/load.txt" --engine bmw,maxscore --mode or \
		--threads 1 --min-time 2s >>"$R/queries-$v.txt" 2>>"$LOG"
	timeout "$(tmo 60)" $(bin $v) bench queries --index "$W/s" --queries "$W/load.txt" --engine bmw,maxscore --mode or \
		--threads 16 --min-time 2s >>"$R/queries-$v.txt" 2>>"$LOG"
	tail -6 "$R/queries-$v.txt" | tee -a "$LOG"
done
pack
for v in ${FITS:-old new}; do
	stamp "fit ($v)"
	timeout "$(tmo 90)" $(bin $v) bench fit --index "$W/s" --queries "$W/fit.txt" --mode or --repeat 3 >"$R/fit-$v.json" 2>>"$LOG"
	cp "$W/s/cost-model.json" "$R/model-$v.json"
	grep -h mean_relative_error "$R/fit-$v.json" | head -2 | tee -a "$LOG"
done
pack
i=0
IFS=';' read -r -a sweeps <<<"$SWEEPS"
for s in "${sweeps[@]}"; do
	i=$((i + 1))
	set -- $s
	v=$1
	p=$2
	shift 2
	stamp "load $i: $v $p $*"
	timeout "$(tmo 60)" $(bin $v) bench load --index "$W/s" --queries "$W/load.txt" --mode or --rate 64000 --deadline 500ms \
		--policy "$p" --sweep --sweep-steps 5 --duration 3s --max-queries 3000000 --model "$R/model-$v.json" "$@" \
		>"$R/load-$i.json" 2>>"$LOG"
	grep -A2 max_rate "$R/load-$i.json" | tee -a "$LOG"
	pack
done
stamp "done"
pack
rm -rf "$W" "$R"
