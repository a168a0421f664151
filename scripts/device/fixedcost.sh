#!/usr/bin/env bash
# GPU machine run for the GPU's fixed cost, part two (fused steps, size
# classes, unpatched graph nodes, a query alone as a wave of one): the
# old binary and the new side by side. From the repository root, with D
# (default .device/h35) carried, holding gpusearch and gpusearch-old
# (cuda builds of this commit and of the one to compare with), gpu.test,
# cuda.test and analytics-gpu.test (make device's test binaries), each
# .gz or .xz, and rustidx.tgz (the rust-doc index, see rustdoc.sh):
#   OUT=... bash scripts/device/fixedcost.sh
#   1. fresh PTX of every kernel source (copied to $OUT, to commit) and
#      every GPU test on it, while gen index makes 5x10^6 documents
#      (gpu-bp256) and gen queries 400 queries; ptxas -v of the OR kernels;
#   2. bench gpu queries (one query at a time with phases, batches of 1,
#      32 and 128) new, old, on the 5x10^6 index, then on rust-doc, then
#      new and old again on the 5x10^6 index (timings drift within a call);
#   3. with STEPS holding ncu: Nsight Compute's times of or_first and
#      or_span_wave for queries alone, new and old.
# The new binary loads the fresh PTX (GPUSEARCH_PTX_DIR), the old one its
# own. STEPS (default "tests bench again") picks the steps.
# $OUT gets fixedcost.tgz (every JSON and log), the PTX and summary.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/fixedcost-out}
D=${D:-.device/h35}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
BUDGET=${BUDGET:-540}
DOCS=${DOCS:-5000000}
STEPS=${STEPS:-tests bench again}
MINTIME=${MINTIME:-0.5s}
step() { [[ " $STEPS " == *" $1 "* ]]; }
R=$(mktemp -d)
W=$(mktemp -d)
LOG=$R/fixedcost.log
mkdir -p "$OUT"
. scripts/device/lib.sh
t0=$(date +%s)
# Binaries come gzipped, or xz-compressed to fit the carry limit (python3's
# lzma where xz is missing).
for z in "$D"/*.gz; do [ -e "$z" ] && gunzip -f "$z" && chmod +x "${z%.gz}"; done
for z in "$D"/*.xz; do
	[ -e "$z" ] || continue
	{ xz -dc "$z" 2>/dev/null || python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$z"; } >"${z%.xz}" &&
		chmod +x "${z%.xz}" && rm -f "$z"
done
for t in gpu.test cuda.test analytics-gpu.test; do [ -x "$D/$t" ] && cp "$D/$t" .device/; done
tar xzf "$D/rustidx.tgz" -C "$W"
NEW=$D/gpusearch OLD=$D/gpusearch-old
pack() { tar czf "$OUT/fixedcost.tgz" -C "$R" .; }

stamp "gen index ($DOCS docs), beside the GPU tests"
(timeout "$(tmo 200)" $NEW gen index --docs "$DOCS" --seed 1 --codec gpu-bp256 --out "$W/g" --quiet --json >"$R/gen.json" 2>>"$LOG" &&
	$NEW gen queries --index "$W/g" --n 400 --seed 2 --out "$W/q.txt" 2>>"$LOG") &
gen=$!
PTX=$(mktemp -d)
if fresh_ptx "$PTX"; then
	cp "$PTX"/*.ptx "$OUT/"
	# ptxas's registers and shared memory of the OR kernels, beside the
	# tests: or_span_wave must keep five CTAs a multiprocessor.
	(cd "$PTX" && timeout 100 "${NVCC%/*}/ptxas" -arch=sm_90 -v --entry or_span_wave,or_first_bp256 query.ptx \
		-o /dev/null >"$R/regs.txt" 2>&1) &
	# The tests that compare the committed PTX with its source and the
	# launches read the tree's copy.
	for cu in $KERNEL_SOURCES; do cp "$PTX/$(basename "$cu" .cu).ptx" "${cu%.cu}.ptx"; done
else
	stamp "ptx: not all sources compiled (nvcc.log)"
	cp "$R/nvcc.log" "$OUT/" 2>/dev/null
fi
if step tests; then
	GPUSEARCH_PTX_DIR=$PTX TEST_TIMEOUT=$(tmo 200) gpu_tests | tee -a "$LOG"
	grep -h -m 10 -E -- '--- FAIL|panic|_test.go:[0-9]+:' "$R"/test-*.log | tee -a "$LOG"
fi
wait $gen
stamp "gen rc=$? $(du -sh "$W/g" | cut -f1)"
pack

# bgq NAME BIN INDEX QUERIES [CPU]: bench gpu queries into NAME.json,
# beside the CPU engines CPU (default bmw; with exhaustive, every GPU
# answer is checked); the new binary (BIN = $NEW) on the fresh PTX.
bgq() {
	local name=$1 bin=$2 idx=$3 q=$4 cpu=${5:-bmw} ptx=
	[ "$bin" = "$NEW" ] && ptx=$PTX
	stamp "bench gpu queries $name"
	GPUSEARCH_PTX_DIR=$ptx timeout "$(tmo 120)" $bin bench gpu queries --index "$idx" --queries "$q" --mode and,or --k 10 \
		--cpu "$cpu" --batch 1,32,128 --min-time "$MINTIME" --json >"$R/$name.json" 2>>"$LOG"
}
if step bench; then
	bgq 5m-new $NEW "$W/g" "$W/q.txt" exhaustive,bmw
	bgq 5m-old $OLD "$W/g" "$W/q.txt"
	pack
	bgq rust-new $NEW "$W/rustidx" examples/queries.txt exhaustive,bmw
	bgq rust-old $OLD "$W/rustidx" examples/queries.txt
	pack
fi
if step again; then
	bgq 5m-new2 $NEW "$W/g" "$W/q.txt"
	bgq 5m-old2 $OLD "$W/g" "$W/q.txt"
fi
# ncu: or_first and or_span_wave of queries alone on the 5x10^6 index
# (launches 60 to 63 of 128 queries, one pass, no graphs), new and old.
if step ncu; then
	head -128 "$W/q.txt" >"$W/q128.txt"
	for b in new old; do
		bin=$NEW ptx=$PTX
		[ $b = old ] && bin=$OLD ptx=
		stamp "ncu $b"
		GPUSEARCH_PTX_DIR=$ptx timeout "$(tmo 60)" "${NVCC%/*}/ncu" --kernel-name 'regex:or_(first|span)' --launch-skip 60 \
			--launch-count 4 --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy \
			$bin bench gpu queries --index "$W/g" --queries "$W/q128.txt" --mode or --k 10 --cpu bmw --batch 128 \
			--min-time 1ns --no-graphs >"$R/ncu-$b.txt" 2>&1
	done
fi
wait  # ptxas
stamp "done"
pack

python3 - "$R" <<'PY' >"$OUT/summary.txt" 2>&1
import json, sys
R = sys.argv[1]
for name in ["5m-new", "5m-old", "rust-new", "rust-old", "5m-new2", "5m-old2"]:
    try:
        r = json.load(open(f"{R}/{name}.json"))
    except Exception as e:
        print(name, "no JSON:", e); continue
    print(f"{name}: {r['index']['docs']} docs, graphs {r.get('graphs')}")
    for m in r['modes']:
        for l in m['latency']:
            if l['subset'] == 'all':
                print(f"  {m['mode']:<3} {l['engine']:<6} p50 {l['p50_us']:7.1f} p99 {l['p99_us']:7.1f} mean {l['mean_us']:7.1f}; mismatches {m['mismatches']}/{m['checked']}, batch differs {m['batch_differs']}")
        for p in m['phases']:
            print(f"  {m['mode']:<3} phases {p['subset']}: " + " ".join(f"{k} {v:.1f}" for k, v in p['us'].items()) + f" = {p['total_us']:.1f}")
        print(f"  {m['mode']:<3} batched q/s: " + ", ".join(f"{b['batch']}: {b['qps']:.0f}" for b in m['batches']))
PY
grep -E 'rc=|ptx:' "$LOG" >>"$OUT/summary.txt"
grep -E 'Compiling|Used|spill' "$R/regs.txt" >>"$OUT/summary.txt" 2>/dev/null
for b in new old; do
	grep -E '^  or_|Duration|Registers Per|Achieved Occupancy' "$R/ncu-$b.txt" 2>/dev/null | sed "s/^/ncu $b: /"
done >>"$OUT/summary.txt"
rm -rf "$W"
cat "$OUT/summary.txt"
