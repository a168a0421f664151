#!/usr/bin/env bash
# GPU machine run for issue 10's open question: do the GPU's batches of
# the heavy queries (the half with the largest CPU/GPU cost ratio, those
# hybrid gives the GPU) cost more than batches of average queries, and
# more beside a CPU load? From the repository root, with .device carried
# (`make device`): OUT=... bash scripts/device/heavy.sh
# On the scheduling index (2x10^6 docs, gpu-bp256, seed 2; the first 400
# of 600 queries of seed 3): bench fit --repeat 1 for each query's
# isolated costs, then bench gpu queries --batch 64 (1 s) on all 400, on
# the heavy 200, and on the heavy 200 again while bench load --policy cpu
# keeps the CPU workers busy. Everything goes to $OUT/heavy.tgz, packed
# again after every step (the device tool brings back at most 8 files).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/heavy-out}
B=${B:-.device/gpusearch}
R=$(mktemp -d)
W=$(mktemp -d)
LOG=$R/heavy.log
t0=$(date +%s)
mkdir -p "$OUT"
. scripts/device/lib.sh
pack() { tar czf "$OUT/heavy.tgz" -C "$R" .; }
gpuq() { # name queries
	$B bench gpu queries --index "$W/s" --queries "$2" --mode or --k 10 --cpu bmw --batch 64 --min-time 1s \
		--json >"$R/gpuq-$1.json" 2>>"$LOG"
	python3 - "$R/gpuq-$1.json" "$1" <<'PY' | tee -a "$LOG"
import json, sys
try:
    m = json.load(open(sys.argv[1]))['modes'][0]
except Exception as e:
    sys.exit(f"{sys.argv[2]}: no result ({e})")
print(sys.argv[2], 'mismatches', m['mismatches'], 'q/s', [round(b['qps']) for b in m['batches']])
PY
	pack
}
stamp "index and queries"
scheduling_set
cp "$W/fit.txt" "$W/all.txt"
pack
stamp fit
$B bench fit --index "$W/s" --queries "$W/all.txt" --mode or --repeat 1 --samples "$R/fit-samples.json" >"$R/fit.json" 2>>"$LOG"
python3 - "$R/fit-samples.json" "$W/all.txt" "$W/heavy.txt" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); lines = open(sys.argv[2]).read().splitlines()
assert len(s) == len(lines), (len(s), len(lines))
order = sorted(range(len(s)), key=lambda i: s[i]['cpu_ns'] / max(1, s[i]['gpu_ns']), reverse=True)
open(sys.argv[3], 'w').write(''.join(lines[i] + '\n' for i in sorted(order[:len(s) // 2])))
PY
stamp "gpu queries: all"
gpuq all "$W/all.txt"
stamp "gpu queries: heavy"
gpuq heavy "$W/heavy.txt"
stamp "gpu queries: heavy beside a CPU load"
$B bench load --index "$W/s" --queries "$W/all.txt" --mode or --policy cpu --rate 24000 --duration 10s \
	--max-queries 1000000 >"$R/cpu-load.json" 2>>"$LOG" &
gpuq heavy-loaded "$W/heavy.txt"
wait
stamp done
pack
