#!/usr/bin/env bash
# GPU machine run that profiles the OR path on the 5x10^6-document index:
# where or_first and or_span_wave spend a query alone and a batch. From
# the repository root, with D (default .device/orprof) carried, holding
# gpusearch (a cuda build, .gz or .xz); PATCH (default
# scripts/device/or-trace.patch, written against b48dc37's query.cu)
# instruments or_span_wave and or_first (below):
#   OUT=... bash scripts/device/orprofile.sh
#   1. gen index (DOCS documents, gpu-bp256) and 400 queries, while the
#      PTX is compiled twice: the kernels as they are with -lineinfo, and
#      query.cu with PATCH applied; ptxas -v of the OR kernels;
#   2. the traced run: bench gpu queries --mode or (alone and batches of
#      128) on the instrumented PTX, whose or_span_wave adds up per CTA
#      the clock64 cycles of each step (zeroing, finding rows, adds, the
#      span's cut, emitting) and of the last CTA's top-k, and per launch
#      the globaltimer span of or_first, of or_span_wave and the gap
#      between them, and prints their means every 100 launches (ORTRACE
#      lines); the instrumentation costs some of what it measures;
#   3. ncu (SpeedOfLight, Occupancy, WarpStateStats, LaunchStats,
#      SourceCounters) of or_first and or_span_wave alone, then of a
#      batch's or_span_wave and decode, on 128 queries without graphs;
#   4. bench gpu queries --mode and,or on the plain PTX, for the phases.
# SRC (default gpu/kernels) names the kernel sources compiled.
# $OUT gets orprofile.tgz (every log, report page and JSON) and
# summary.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/orprofile-out}
D=${D:-.device/orprof}
SRC=${SRC:-gpu/kernels}
PATCH=${PATCH:-scripts/device/or-trace.patch}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
NCU=${NCU:-/usr/local/cuda/bin/ncu}
BUDGET=${BUDGET:-420}
DOCS=${DOCS:-5000000}
R=$(mktemp -d)
W=$(mktemp -d)
LOG=$R/orprofile.log
mkdir -p "$OUT"
. scripts/device/lib.sh
t0=$(date +%s)
for z in "$D"/*.xz; do
	[ -e "$z" ] || continue
	{ xz -dc "$z" 2>/dev/null || python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$z"; } >"${z%.xz}" &&
		chmod +x "${z%.xz}" && rm -f "$z"
done
for z in "$D"/*.gz; do [ -e "$z" ] && gunzip -f "$z" && chmod +x "${z%.gz}"; done
B=$D/gpusearch
pack() { tar czf "$OUT/orprofile.tgz" -C "$R" .; }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv; nproc; "$NVCC" --version | tail -1; "$NCU" --version | tail -1; } >"$R/machine.txt" 2>&1

stamp "gen index ($DOCS docs)"
(timeout "$(tmo 220)" $B gen index --docs "$DOCS" --seed 1 --codec gpu-bp256 --out "$W/g" --quiet --json >"$R/gen.json" 2>>"$LOG" &&
	$B gen queries --index "$W/g" --n 400 --seed 2 --out "$W/q.txt" 2>>"$LOG") &
gen=$!

# P0: the kernels as they are, with line info for ncu's source view; P1:
# the same with query.cu instrumented.
P0=$(mktemp -d) P1=$(mktemp -d) K1=$(mktemp -d)
cp gpu/kernels/*.ptx "$P0/"
cp gpu/kernels/*.ptx "$P1/"
sh gpu/kernels/mkptx.sh "$SRC/query.cu" "$P0/query.ptx" -lineinfo >"$R/nvcc.log" 2>&1 || stamp "ptx: plain query.cu failed"
sh gpu/kernels/mkptx.sh "$SRC/decode.cu" "$P0/decode.ptx" -lineinfo >>"$R/nvcc.log" 2>&1 || stamp "ptx: decode.cu failed"
cp "$SRC"/*.cu "$SRC"/*.cuh "$K1/"
if (cd "$K1" && patch -p0 --no-backup-if-mismatch query.cu) <"$PATCH" >>"$R/nvcc.log" 2>&1 &&
	sh gpu/kernels/mkptx.sh "$K1/query.cu" "$P1/query.ptx" >>"$R/nvcc.log" 2>&1; then
	trace=1
else
	trace=0
	stamp "ptx: traced query.cu failed (nvcc.log)"
fi
(cd "$P0" && timeout 120 "${NVCC%/*}/ptxas" -arch=sm_90 -v --entry or_span_wave,or_first_bp256,topk_hist_wave,topk_compact_wave query.ptx -o /dev/null) >"$R/regs.txt" 2>&1
stamp "ptx done (trace=$trace)"
wait $gen
stamp "gen rc=$? $(du -sh "$W/g" | cut -f1)"
head -128 "$W/q.txt" >"$W/q128.txt"
pack

if [ $trace = 1 ]; then
	stamp "traced bench"
	GPUSEARCH_PTX_DIR=$P1 timeout "$(tmo 90)" $B bench gpu queries --index "$W/g" --queries "$W/q.txt" --mode or --k 10 \
		--cpu bmw --batch 1,128 --min-time 0.3s >"$R/trace.out" 2>>"$LOG"
	stamp "traced bench rc=$?"
	pack
fi

# ncu over 128 queries, one pass each (--min-time 1ns): a query alone
# launches or_span_wave three times (answer, timed pass, profile), so
# launches from 384 on are the batches'.
NCUSEC="--section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters"
ncu_run() {
	local name=$1 regex=$2 skip=$3 count=$4
	stamp "ncu $name"
	GPUSEARCH_PTX_DIR=$P0 timeout "$(tmo 100)" "$NCU" --kernel-name "regex:$regex" --launch-skip "$skip" --launch-count "$count" --clock-control none \
		$NCUSEC --import-source yes -f -o "$R/$name" $B bench gpu queries --index "$W/g" --queries "$W/q128.txt" --mode or \
		--k 10 --cpu bmw --batch 128 --min-time 1ns --no-graphs >"$R/$name.out" 2>&1
	stamp "ncu $name rc=$?"
	"$NCU" -i "$R/$name.ncu-rep" --page details >"$R/$name-details.txt" 2>&1
	"$NCU" -i "$R/$name.ncu-rep" --page source --csv --print-source sass >"$R/$name-source.csv" 2>&1 ||
		"$NCU" -i "$R/$name.ncu-rep" --page source --csv >"$R/$name-source.csv" 2>&1
	rm -f "$R/$name.ncu-rep"
	pack
}
ncu_run alone 'or_(first|span)' 60 4
ncu_run batch 'or_span_wave|decodepair' 382 6

stamp "plain bench"
GPUSEARCH_PTX_DIR=$P0 timeout "$(tmo 100)" $B bench gpu queries --index "$W/g" --queries "$W/q.txt" --mode and,or --k 10 \
	--cpu bmw --batch 1,128 --min-time 0.3s --json >"$R/plain.json" 2>>"$LOG"
stamp "plain bench rc=$?"
stamp "done"
pack

{
	cat "$R/machine.txt"
	grep -E 'Used|spill|Compiling' "$R/regs.txt"
	grep ORTRACE "$R/trace.out" 2>/dev/null | tail -6
	for n in alone batch; do
		echo "== ncu $n"
		grep -E '^  [a-z_0-9]+.*\(|Duration|Registers Per|Shared Memory Config|Dynamic Shared|Static Shared|Achieved Occupancy|Theoretical Occupancy|Block Limit|Waves Per SM|Grid Size|Compute \(SM\) Throughput|Memory Throughput|Warp Cycles Per Issued|Issued Warp' "$R/$n-details.txt" 2>/dev/null | head -80
	done
	python3 - "$R/plain.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for m in r['modes']:
    for l in m['latency']:
        if l['subset'] == 'all' and l['engine'] == 'gpu':
            print(f"{m['mode']} gpu p50 {l['p50_us']:.1f} p99 {l['p99_us']:.1f}")
    for p in m['phases']:
        if p['subset'] == 'all':
            print(f"{m['mode']} phases " + " ".join(f"{k} {v:.1f}" for k, v in p['us'].items()))
    print(f"{m['mode']} batched q/s " + ", ".join(f"{b['batch']}: {b['qps']:.0f}" for b in m['batches']))
PY
	grep -E 'rc=|ptx' "$LOG"
} >"$OUT/summary.txt" 2>&1
rm -rf "$W"
cat "$OUT/summary.txt"
