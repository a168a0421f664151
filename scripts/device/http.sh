#!/usr/bin/env bash
# GPU machine run: the server's throughput over HTTP for engine=auto under
# each scheduling policy (caveat: bench load feeds the
# scheduler in process, a deployment also spends cores on HTTP). From the
# repository root with .device/gpusearch (cuda build) carried:
#   OUT=... bash scripts/device/http.sh
# On the scheduling index and queries (lib.sh's scheduling_set; the cost
# model fitted on the first 400 queries in MODE), for each entry of
# POLICIES (default hybrid gpu cpu), POLICY[:CPU_WORKERS[:GPU_WAIT]] (say
# hybrid:4 or gpu::block): gpusearch serve with server.policy,
# server.cpu_workers and gpu.wait set, the result cache off and the access log off (ACCESS_LOG=true keeps
# it), then bench http --engine auto --mode MODE
# over the last 200 queries at each concurrency of CONC (closed loop,
# DURATION each after a 1 s warmup; the client runs on the same machine:
# SERVER_CPUS and CLIENT_CPUS, taskset CPU lists such as 0-11 and 12-15,
# pin each to its own cores).
# Everything goes to $OUT/http.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/http-out}
MODE=${MODE:-and}
POLICIES=${POLICIES:-hybrid gpu cpu}
CONC=${CONC:-64,256,1024}
DURATION=${DURATION:-4s}
BUDGET=${BUDGET:-400}
ACCESS_LOG=${ACCESS_LOG:-false}
srv=() cli=()
[ -n "${SERVER_CPUS:-}" ] && srv=(taskset -c "$SERVER_CPUS")
[ -n "${CLIENT_CPUS:-}" ] && cli=(taskset -c "$CLIENT_CPUS")
B=.device/gpusearch
R=$(mktemp -d)
W=${WORK:-$(mktemp -d)}
LOG=$R/http.log
t0=$(date +%s)
mkdir -p "$OUT"
. scripts/device/lib.sh
pack() { tar czf "$OUT/http.tgz" -C "$R" .; }

if [ ! -f "$W/load.txt" ]; then
	stamp "gen"
	scheduling_set
fi
stamp "fit"
timeout "$(tmo 90)" $B bench fit --index "$W/s" --queries "$W/fit.txt" --mode "$MODE" --repeat 3 >"$R/fit.json" 2>>"$LOG"
for v in $POLICIES; do
	IFS=: read -r policy workers wait <<<"$v"
	p=${v//:/-}
	stamp "serve, $v"
	printf 'server:\n  addr: 127.0.0.1:8090\n  cache_entries: 0\n  access_log: %s\n  policy: %s\n  cpu_workers: %s\ngpu:\n  wait: %s\n' \
		"$ACCESS_LOG" "$policy" "${workers:-0}" "${wait:-auto}" >"$R/serve-$p.yaml"
	"${srv[@]}" $B serve --config "$R/serve-$p.yaml" --index "$W/s" 2>"$R/serve-$p.log" &
	pid=$!
	for _ in $(seq 120); do
		(exec 3<>/dev/tcp/127.0.0.1/8090) 2>/dev/null && break
		sleep 0.5
	done
	"${cli[@]}" timeout "$(tmo 120)" $B bench http --addr 127.0.0.1:8090 --queries "$W/load.txt" --engine auto --mode "$MODE" \
		--concurrency "$CONC" --duration "$DURATION" --json >"$R/http-$p.json" 2>>"$LOG"
	python3 - "$R/http-$p.json" "$p" <<'PY' | tee -a "$LOG"
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("no JSON:", e); sys.exit()
for run in r['runs']:
    print(f"  {sys.argv[2]:<14} concurrency {run['concurrency']:>5}: {run['qps']:>9.0f} q/s, errors {run['errors']}")
PY
	kill -INT $pid
	wait $pid
	pack
done
stamp "done"
pack
[ -n "${WORK:-}" ] || rm -rf "$W"
rm -rf "$R"
