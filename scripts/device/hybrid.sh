#!/usr/bin/env bash
# GPU machine run for issue 10: hybrid scheduling variants against cpu in
# one run, on the index and queries of waves.sh (2x10^6 docs, gpu-bp256,
# seed 2; 600 queries, seed 3: 400 fit, 200 load). From the repository
# root, with .device carried (`make device`):
#   OUT=... bash scripts/device/hybrid.sh
# Sweeps (3 s per rate, 4 bisections): cpu; hybrid; hybrid
# --urgent-any-proc; hybrid --cpu-workers 15; hybrid --cpu-workers 15
# --urgent-any-proc. Each sweep stops after SWEEP_TIMEOUT seconds (100).
# Everything is packed in $OUT/hybrid.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/hybrid-out}
B=.device/gpusearch
R=$(mktemp -d)
W=$(mktemp -d)
LOG=$R/hybrid.log
. scripts/device/lib.sh
scheduling_set
$B bench fit --index "$W/s" --queries "$W/fit.txt" --mode or --repeat 3 >"$R/fit.json" 2>>"$LOG"
i=0
# VARIANTS (';'-separated) replaces the list above.
IFS=';' read -r -a variants <<<"${VARIANTS:-cpu;hybrid;hybrid --urgent-any-proc;hybrid --cpu-workers 15;hybrid --cpu-workers 15 --urgent-any-proc}"
for v in "${variants[@]}"; do
	i=$((i + 1))
	echo "== $i: $v" | tee -a "$LOG"
	set -- $v
	p=$1
	shift
	timeout "${SWEEP_TIMEOUT:-100}" $B bench load --index "$W/s" --queries "$W/load.txt" --mode or --rate 2000 --deadline 500ms \
		--policy "$p" "$@" --sweep --sweep-steps 4 --duration 3s >"$R/load-$i.json" 2>>"$LOG"
	grep -A2 max_rate "$R/load-$i.json" | tee -a "$LOG"
done
rm -rf "$W"
mkdir -p "$OUT"
tar czf "$OUT/hybrid.tgz" -C "$R" .
rm -rf "$R"
