#!/usr/bin/env bash
# GPU machine run: CPU profiles of the host side at the scheduling index's
# highest AND rates (issue 10): bench load --policy gpu and hybrid for 3 s
# each, and bench gpu queries --batch 128, each with --cpuprofile. From the
# repository root with .device carried (`make device`):
#   OUT=... bash scripts/device/profile-host.sh
# GPU_RATE and HYBRID_RATE set the two loads' rates (defaults 288000 and
# 320000, about the highest each sustained in runs BI-BL; runs BC-BD's
# profile used 176000 and 256000).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/profile-out}
B=.device/gpusearch
W=$(mktemp -d)
R=$OUT
LOG=$OUT/profile.log
mkdir -p "$OUT"
. scripts/device/lib.sh
scheduling_set
$B bench fit --index "$W/s" --queries "$W/fit.txt" --mode and --repeat 3 >"$OUT/fit.json"
for p in gpu hybrid; do
	rate=${GPU_RATE:-288000}
	[ $p = hybrid ] && rate=${HYBRID_RATE:-320000}
	$B bench load --index "$W/s" --queries "$W/load.txt" --mode and --rate "$rate" --deadline 500ms --policy $p \
		--duration 3s --max-queries 3000000 --cpuprofile "$OUT/load-$p.pprof" >"$OUT/load-$p.json"
done
$B bench gpu queries --index "$W/s" --queries "$W/q.txt" --mode and --k 10 --cpu bmw --batch 128 --min-time 3s \
	--json --cpuprofile "$OUT/gpuq.pprof" >"$OUT/gpuq.json"
rm -rf "$W"
