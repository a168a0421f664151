#!/usr/bin/env bash
# GPU machine run for issue 10 after the cpu engine became MaxScore OR
# (issue 8): every policy with the default CPU engine, then cpu and hybrid
# with BMW on the CPU workers (model refitted for BMW), on the index and
# queries of hybrid.sh (2x10^6 docs, gpu-bp256, seed 2; 400 fit, 200 load
# queries). From the repository root, with .device carried (`make device`):
#   OUT=... bash scripts/device/hybrid-engines.sh
# Sweeps: 3 s per rate, 4 bisections, as hybrid.sh. Everything is packed in
# $OUT/hybrid-engines.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/hybrid-engines-out}
B=.device/gpusearch
R=$(mktemp -d)
W=$(mktemp -d)
LOG=$R/hybrid.log
. scripts/device/lib.sh
scheduling_set
sweep() { # name, then bench load flags
	local name=$1
	shift
	echo "== $name: $*" | tee -a "$LOG"
	timeout 100 $B bench load --index "$W/s" --queries "$W/load.txt" --mode or --rate 2000 --deadline 500ms \
		"$@" --sweep --sweep-steps 4 --duration 3s >"$R/load-$name.json" 2>>"$LOG"
	grep -A2 max_rate "$R/load-$name.json" | tee -a "$LOG"
}
$B bench fit --index "$W/s" --queries "$W/fit.txt" --mode or --repeat 3 >"$R/fit-cpu.json" 2>>"$LOG"
sweep cpu --policy cpu
sweep gpu --policy gpu
sweep hybrid --policy hybrid
$B bench fit --index "$W/s" --queries "$W/fit.txt" --mode or --repeat 3 --cpu-engine bmw >"$R/fit-bmw.json" 2>>"$LOG"
sweep cpu-bmw --policy cpu --cpu-engine bmw
sweep hybrid-bmw --policy hybrid --cpu-engine bmw
rm -rf "$W"
mkdir -p "$OUT"
tar czf "$OUT/hybrid-engines.tgz" -C "$R" .
rm -rf "$R"
