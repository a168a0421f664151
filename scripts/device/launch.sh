#!/usr/bin/env bash
# GPU machine run for the GPU's fixed cost (CUDA graphs, micro-batching,
# POST /msearch): the old binary and the new side by side. From the
# repository root, with D (default .device/i35) carried, holding
# gpusearch.gz and gpusearch-old.gz (cuda builds of this commit and of the
# one before the change), gpu.test.gz and cuda.test.gz (make device's
# test binaries) and rustidx.tgz (the rust-doc index, see rustdoc.sh):
#   OUT=... bash scripts/device/launch.sh
#   1. the GPU tests of the query engine and internal/cuda (CUDA graphs
#      made and patched, against the launches one by one and the
#      exhaustive scorer), while gen index makes 5x10^6 documents
#      (gpu-bp256) and gen queries 400 queries;
#   2. bench gpu queries (one query at a time with phases, batches) new,
#      old, on the 5x10^6 index and rust-doc;
#   3. serve old and new (cache and access log off), bench http with
#      engine=gpu (and, or) and engine=auto (and, or) at concurrency
#      16, 128 and 1024; POST /msearch of 64 queries on the new one; the
#      new one again with gpu.window 200us for engine=gpu;
#   4. new with --no-graphs on both indexes, as time allows.
# STEPS (default "tests bench rest nographs") picks the steps; the index
# is made whenever bench or rest runs.
# $OUT gets launch.tgz (every JSON and log) and summary.txt.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/launch-out}
D=${D:-.device/i35}
BUDGET=${BUDGET:-530}
DOCS=${DOCS:-5000000}
STEPS=${STEPS:-tests bench rest nographs}
step() { [[ " $STEPS " == *" $1 "* ]]; }
R=$(mktemp -d)
W=$(mktemp -d)
LOG=$R/launch.log
mkdir -p "$OUT"
. scripts/device/lib.sh
t0=$(date +%s)
for z in "$D"/*.gz; do gunzip -f "$z" && chmod +x "${z%.gz}"; done
tar xzf "$D/rustidx.tgz" -C "$W"
NEW=$D/gpusearch OLD=$D/gpusearch-old
pack() { tar czf "$OUT/launch.tgz" -C "$R" .; }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; } >"$R/machine.txt" 2>&1

stamp "gen index ($DOCS docs), beside the GPU tests"
(timeout "$(tmo 170)" $NEW gen index --docs "$DOCS" --seed 1 --codec gpu-bp256 --out "$W/g" --quiet --json >"$R/gen.json" 2>>"$LOG" &&
	$NEW gen queries --index "$W/g" --n 400 --seed 2 --out "$W/q.txt" 2>>"$LOG") &
gen=$!
if step tests; then
	(cd gpu && timeout "$(tmo 170)" "../$D/gpu.test" -test.run '^(TestEngine.*|TestDeviceInfo)$' -test.v -test.timeout 165s) >"$R/test-gpu.log" 2>&1
	echo "gpu.test rc=$?: $(grep -c -- '^--- PASS' "$R/test-gpu.log") passed, $(grep -c -- '--- FAIL' "$R/test-gpu.log") failed" | tee -a "$LOG"
	grep -m 10 -E -- '--- FAIL|panic|_test.go:[0-9]+:' "$R/test-gpu.log" | tee -a "$LOG"
	(cd internal/cuda && timeout "$(tmo 60)" "../../$D/cuda.test" -test.v -test.timeout 55s) >"$R/test-cuda.log" 2>&1
	echo "cuda.test rc=$?: $(grep -c -- '^--- PASS' "$R/test-cuda.log") passed, $(grep -c -- '--- FAIL' "$R/test-cuda.log") failed" | tee -a "$LOG"
fi
wait $gen
stamp "gen rc=$? $(du -sh "$W/g" | cut -f1)"
pack

# bgq NAME BIN INDEX QUERIES [FLAGS...]: bench gpu queries into NAME.json.
bgq() {
	local name=$1 bin=$2 idx=$3 q=$4
	shift 4
	stamp "bench gpu queries $name"
	timeout "$(tmo 90)" $bin bench gpu queries --index "$idx" --queries "$q" --mode and,or --k 10 --cpu bmw \
		--batch 1,32,128 --min-time 0.5s --json "$@" >"$R/$name.json" 2>>"$LOG"
}
if step bench; then
	bgq 5m-new $NEW "$W/g" "$W/q.txt"
	bgq 5m-old $OLD "$W/g" "$W/q.txt"
	pack
fi

# serve_run NAME BIN WINDOW: serve the 5x10^6 index with BIN (gpu.window
# WINDOW unless empty) and load it; then the runs given as
# "ENGINE MODE CONC [MSEARCH]" on stdin, into http-NAME-*.json.
serve_run() {
	local name=$1 bin=$2 window=$3 engine mode conc ms pid
	printf 'server:\n  addr: 127.0.0.1:8090\n  cache_entries: 0\n  access_log: false\n' >"$R/serve-$name.yaml"
	[ -n "$window" ] && printf 'gpu:\n  window: %s\n' "$window" >>"$R/serve-$name.yaml"
	stamp "serve $name"
	$bin serve --config "$R/serve-$name.yaml" --index "$W/g" 2>"$R/serve-$name.log" &
	pid=$!
	for _ in $(seq 120); do
		(exec 3<>/dev/tcp/127.0.0.1/8090) 2>/dev/null && break
		sleep 0.5
	done
	while read -r engine mode conc ms; do
		local tag=$engine-$mode${ms:+-ms$ms}
		timeout "$(tmo 60)" $NEW bench http --addr 127.0.0.1:8090 --queries "$W/q.txt" --engine "$engine" --mode "$mode" \
			--concurrency "$conc" --duration 2s --warmup 500ms ${ms:+--msearch $ms} --json >"$R/http-$name-$tag.json" 2>>"$LOG"
		python3 - "$R/http-$name-$tag.json" "$name $tag" <<'PY' | tee -a "$LOG"
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(sys.argv[2], "no JSON:", e); sys.exit()
print(sys.argv[2] + ": " + ", ".join(f"c{x['concurrency']} {x.get('queries_per_s', x['qps']):.0f} q/s (p50 {x['p50_us']:.0f} us, err {x['errors']})" for x in r['runs']))
PY
	done
	kill -INT $pid
	wait $pid
	pack
}
if step rest; then
	serve_run old $OLD "" <<-'EOF'
	gpu and 16,128,1024
	gpu or 16,128,1024
	auto and 16,128,1024
	auto or 16,128,1024
	EOF
	serve_run new $NEW "" <<-'EOF'
	gpu and 16,128,1024
	gpu or 16,128,1024
	auto and 16,128,1024
	auto or 16,128,1024
	gpu and 16,128 64
	gpu or 16,128 64
	auto and 16,128 64
	EOF
	serve_run new-w200 $NEW 200us <<-'EOF'
	gpu and 16,128,1024
	gpu or 16,128,1024
	EOF
fi
if step bench; then
	bgq rust-new $NEW "$W/rustidx" examples/queries.txt
	bgq rust-old $OLD "$W/rustidx" examples/queries.txt
	pack
fi
if step nographs; then
	bgq 5m-nographs $NEW "$W/g" "$W/q.txt" --no-graphs
	bgq rust-nographs $NEW "$W/rustidx" examples/queries.txt --no-graphs
fi
stamp "done"
pack

python3 - "$R" <<'PY' >"$OUT/summary.txt" 2>&1
import json, sys, os
R = sys.argv[1]
for name in ["5m-new", "5m-old", "5m-nographs", "rust-new", "rust-old", "rust-nographs"]:
    try:
        r = json.load(open(f"{R}/{name}.json"))
    except Exception as e:
        print(name, "no JSON:", e); continue
    print(f"{name}: {r['index']['docs']} docs, graphs {r.get('graphs')}, notes {r.get('notes')}")
    for m in r['modes']:
        gpu = [l for l in m['latency'] if l['engine'].startswith('gpu') and l['subset'] == 'all']
        for l in gpu:
            print(f"  {m['mode']:<3} p50 {l['p50_us']:7.1f} p99 {l['p99_us']:7.1f} mean {l['mean_us']:7.1f}; mismatches {m['mismatches']}/{m['checked']}, batch differs {m['batch_differs']}")
        for p in m['phases']:
            print(f"  {m['mode']:<3} phases {p['subset']}: " + " ".join(f"{k} {v:.1f}" for k, v in p['us'].items()) + f" = {p['total_us']:.1f}")
        print(f"  {m['mode']:<3} batched q/s: " + ", ".join(f"{b['batch']}: {b['qps']:.0f}" for b in m['batches']))
PY
grep -h -E '^(old|new|new-w200) ' "$LOG" >>"$OUT/summary.txt"
grep -E 'rc=' "$LOG" >>"$OUT/summary.txt"
rm -rf "$W"
cat "$OUT/summary.txt"
