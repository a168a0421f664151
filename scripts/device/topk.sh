#!/usr/bin/env bash
# GPU machine run for top-k comparison: radix select against the
# paper's max tree. From the repository root, with .device carried (`make
# device`):
#   OUT=... bash scripts/device/topk.sh
#   1. every kernel source to PTX in a scratch directory the binaries
#      load (GPUSEARCH_PTX_DIR); the PTX is copied to $OUT to be committed;
#   2. every GPU test binary (lib.sh's fresh_ptx_and_tests);
#   3. gen index 5x10^6 docs (gpu-bp256, seed 1), 500 queries, then bench gpu
#      queries in OR mode for --topk radix and tree at k 10 and 1000 (one
#      query at a time; exhaustive, which checks the answers, and bmw beside).
# $OUT gets the PTX and topk.tgz (everything else).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/topk-out}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
B=.device/gpusearch
R=$(mktemp -d)
W=$(mktemp -d)
mkdir -p "$OUT"
. scripts/device/lib.sh
fresh_ptx_and_tests
timeout 150 $B gen index --docs 5000000 --seed 1 --codec gpu-bp256 --out "$W/g" --quiet --json >"$R/gen.json" 2>>"$R/topk.log"
timeout 30 $B gen queries --index "$W/g" --n 500 --out "$W/q.txt" 2>>"$R/topk.log"
for k in 10 1000; do
	for m in radix tree; do
		timeout 100 $B bench gpu queries --index "$W/g" --queries "$W/q.txt" --mode or --k $k --cpu exhaustive,bmw --batch 1 \
			--topk $m --min-time 1s --json >"$R/bench-$m-k$k.json" 2>>"$R/topk.log"
		echo "bench topk $m k $k rc=$?"
	done
done
python3 - "$R" <<'PY'
import json, sys, os
d = sys.argv[1]
for f in sorted(os.listdir(d)):
    if not f.startswith('bench-'): continue
    r = json.load(open(os.path.join(d, f)))
    m = r['modes'][0]
    g = [l for l in m['latency'] if l['engine'] == 'gpu' and l['subset'] == 'all'][0]
    ph = [p for p in m['phases'] if p['subset'] == 'all'][0]
    print(f"{f}: gpu mean {g['mean_us']:.1f} p50 {g['p50_us']:.1f} p99 {g['p99_us']:.1f} us; topk phase {ph['us']['topk']:.1f} us; mismatches {m['mismatches']}/{m['checked']}")
PY
tar czf "$OUT/topk.tgz" -C "$R" .
rm -rf "$R" "$W"
