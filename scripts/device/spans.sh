#!/usr/bin/env bash
# GPU machine run for OR waves scored by document span (or_span_wave).
# From the repository root, with .device carried: `make device`, plus .device/gpusearch-old, the CUDA build of the commit before
# (it runs on the PTX embedded in it):
#   OUT=... STEPS=tests,gpuq,sched bash scripts/device/spans.sh
# Steps (STEPS, comma-separated, all by default):
#   tests  every kernel source to PTX in a scratch directory that the new
#          binaries load (GPUSEARCH_PTX_DIR; copied to $OUT to commit),
#          then every GPU test binary (lib.sh's gpu_tests);
#   gpuq   on the scheduling index (2x10^6 docs, gpu-bp256, seed 2; 600
#          queries, seed 3), bench gpu queries --mode MODE --k 10 with the old
#          binary, then the new one, then the old one again (batches
#          1,64,128,512; 1 s each); with CALLERS=N, the new one also
#          with --callers N after its first run;
#   profile  ncu (per-kernel time and DRAM bytes) over bench gpu queries
#          --batch 64 on the first 128 queries: the first 3 launches of each
#          launch configuration of the wave kernels, decoders, pick and
#          finish (the waves' decoders have grids no single query has);
#   sched  bench fit on the first 400 queries (first, for each NAME=ENGINES
#          of EXTRA_FITS, ';'-separated, a fit with --cpu-engine ENGINES kept
#          as model-NAME.json, which a variant names as --model @NAME.json),
#          then bench load --sweep (3 s
#          per rate, 4 bisections, from START_RATE) on the last 200 for each
#          of VARIANTS (';'-separated; default cpu;gpu;hybrid; a variant
#          may start with environment settings, e.g. GOMAXPROCS=18 hybrid,
#          and BIN=.device/gpusearch-old runs that binary instead; its
#          flags come last, so that e.g. --duration 10s overrides 3s;
#          SWEEP_TIME, when set, is passed to the new binary as
#          --sweep-time, so that a sweep stops itself and leaves its JSON
#          before SWEEP_TIMEOUT kills it (not to BIN= binaries: those
#          before commit c63d5d9 lack the flag));
#   trace  bench load --policy hybrid at TRACE_RATE (default 88000) for
#          0.5 s with an execution trace and a CPU profile (trace.out.gz,
#          cpu.pprof), after sched (its cost model).
# MODE (default or) is the query mode of every step after tests: and, or,
# andor, or a list (bench load then sends each query in every mode). WORK,
# when set, is a directory that keeps the index and queries for the next
# call of the script in the same machine run. Everything goes to
# $OUT/spans.tgz, packed again after every step.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
OUT=${OUT:-/tmp/spans-out}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
BUDGET=${BUDGET:-580}
STEPS=${STEPS:-tests,gpuq,sched}
MODE=${MODE:-or}
B=.device/gpusearch
R=$(mktemp -d)
W=${WORK:-$(mktemp -d)}
LOG=$R/spans.log
t0=$(date +%s)
mkdir -p "$OUT"
. scripts/device/lib.sh
pack() { tar czf "$OUT/spans.tgz" -C "$R" .; }
has() { [[ ",$STEPS," == *",$1,"* ]]; }
{ nvidia-smi -L; nproc; lscpu; "$NVCC" --version | tail -1; } >"$R/machine.txt" 2>&1

PTX=$(mktemp -d)
stamp "ptx"
fresh_ptx "$PTX" | tee -a "$LOG"
cp "$PTX"/query.ptx "$OUT/" 2>/dev/null
export GPUSEARCH_PTX_DIR=$PTX
if has tests; then
	stamp "gpu tests"
	TEST_TIMEOUT=$(tmo 200) gpu_tests | tee -a "$LOG"
	pack
fi

if [ ! -f "$W/q.txt" ]; then
	stamp "gen"
	timeout "$(tmo 90)" $B gen index --docs 2000000 --seed 2 --codec gpu-bp256 --out "$W/s" --quiet --json >"$R/gen.json" 2>>"$LOG"
	timeout "$(tmo 30)" $B gen queries --index "$W/s" --n 600 --seed 3 --out "$W/q.txt" 2>>"$LOG"
fi
head -400 "$W/q.txt" >"$W/fit.txt"
tail -200 "$W/q.txt" >"$W/load.txt"

if has gpuq; then
	for v in old new ${CALLERS:+callers} old2; do
		bin=$B
		[ "$v" = new ] || [ "$v" = callers ] || bin=.device/gpusearch-old
		stamp "bench gpu queries ($v)"
		c=1
		[ "$v" = callers ] && c=$CALLERS
		if [ "$v" = new ] || [ "$v" = callers ]; then
			timeout "$(tmo 90)" $bin bench gpu queries --index "$W/s" --queries "$W/q.txt" --mode "$MODE" --k 10 --cpu bmw \
				--batch 1,64,128,512 --min-time 1s --callers $c --json >"$R/gpuq-$v.json" 2>>"$LOG"
		else
			GPUSEARCH_PTX_DIR= timeout "$(tmo 90)" $bin bench gpu queries --index "$W/s" --queries "$W/q.txt" --mode "$MODE" --k 10 --cpu bmw \
				--batch 1,64,128,512 --min-time 1s --json >"$R/gpuq-$v.json" 2>>"$LOG"
		fi
		python3 - "$R/gpuq-$v.json" <<'PY' | tee -a "$LOG"
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("no JSON:", e); sys.exit()
for m in r['modes']:
    print(f"  mismatches {m['mismatches']}/{m['checked']}, batch vs single {m['batch_differs']}; q/s " +
          ", ".join(f"{b['batch']}: {b['qps']:.0f}" for b in m['batches']))
PY
	done
	pack
fi

if has profile; then
	stamp "profile"
	head -128 "$W/q.txt" >"$W/q128.txt"
	timeout "$(tmo 150)" /usr/local/cuda/bin/ncu -k regex:'wave|decode|pick|finish' --filter-mode per-launch-config \
		--launch-count 3 --metrics gpu__time_duration.sum,dram__bytes.sum --csv "$ROOT/$B" bench gpu queries --index "$W/s" \
		--queries "$W/q128.txt" --mode "$MODE" --k 10 --cpu bmw --batch 64 --min-time 0.1s >"$R/ncu.csv" 2>>"$LOG"
	python3 - "$R/ncu.csv" <<'PY' | tee -a "$LOG"
import csv, sys
rows = list(csv.reader(l for l in open(sys.argv[1]) if l.startswith('"')))
if not rows:
    sys.exit("no ncu rows")
h = rows[0]
ki, gi, mi, vi = (h.index(c) for c in ('Kernel Name', 'Grid Size', 'Metric Name', 'Metric Value'))
for r in rows[1:]:
    grid = int(r[gi].strip('()').split(',')[0])
    if 'wave' in r[ki] or grid >= 1000 or (r[ki].startswith('topk') and grid >= 64):
        print(f"{r[ki][:22]:<22} grid {grid:>6} {r[mi][:22]:<22} {r[vi]}")
PY
	pack
fi

if has sched; then
	IFS=';' read -r -a fits <<<"${EXTRA_FITS:-}"
	for fe in "${fits[@]}"; do
		stamp "fit ${fe%%=*}: --cpu-engine ${fe#*=}"
		timeout "$(tmo 90)" $B bench fit --index "$W/s" --queries "$W/fit.txt" --mode "$MODE" --repeat 3 --cpu-engine "${fe#*=}" >"$R/fit-${fe%%=*}.json" 2>>"$LOG"
		cp "$W/s/cost-model.json" "$R/model-${fe%%=*}.json"
	done
	stamp "fit"
	timeout "$(tmo 90)" $B bench fit --index "$W/s" --queries "$W/fit.txt" --mode "$MODE" --repeat 3 --samples "$R/fit-samples.json" >"$R/fit.json" 2>>"$LOG"
	cp "$W/s/cost-model.json" "$R/"
	grep -h mean_relative_error "$R/fit.json" | tee -a "$LOG"
	pack
	i=0
	IFS=';' read -r -a variants <<<"${VARIANTS:-cpu;gpu;hybrid}"
	for v in "${variants[@]}"; do
		i=$((i + 1))
		stamp "load $i: $v"
		set -- ${v//@/$R/model-}
		envs=()
		bin=$B
		while [[ $# -gt 0 && $1 == *=* ]]; do
			if [[ $1 == BIN=* ]]; then bin=${1#BIN=}; else envs+=("$1"); fi
			shift
		done
		p=$1
		shift
		st=()
		[ -n "${SWEEP_TIME:-}" ] && [ "$bin" = "$B" ] && st=(--sweep-time "$SWEEP_TIME")
		timeout "$(tmo "${SWEEP_TIMEOUT:-80}")" env "${envs[@]}" $bin bench load --index "$W/s" --queries "$W/load.txt" --mode "$MODE" --rate "${START_RATE:-8000}" \
			--deadline 500ms --policy "$p" --sweep --sweep-steps 4 --duration 3s --max-queries 8000000 "${st[@]}" \
			"$@" >"$R/load-$i.json" 2>>"$LOG"
		grep -A2 max_rate "$R/load-$i.json" | tee -a "$LOG"
		pack
	done
fi
if has trace; then
	stamp "trace"
	timeout "$(tmo 60)" $B bench load --index "$W/s" --queries "$W/load.txt" --mode "$MODE" --rate "${TRACE_RATE:-88000}" \
		--deadline 500ms --policy hybrid --duration 0.5s --max-queries 1000000 --trace "$R/trace.out" \
		--cpuprofile "$R/cpu.pprof" >"$R/trace-load.json" 2>>"$LOG"
	gzip -f "$R/trace.out"
	ls -l "$R" | tee -a "$LOG"
	pack
fi
stamp "done"
pack
[ -n "${WORK:-}" ] || rm -rf "$W"
rm -rf "$R" "$PTX"
