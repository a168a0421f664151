#!/usr/bin/env bash
# GPU machine run: gpusearch serve with a GPU, end to end. From
# the repository root, with .device/gpusearch (a CUDA build) carried:
#   OUT=... bash scripts/device/serve-smoke.sh
# It generates 2x10^5 documents (gpu-bp256) and 300 queries, serves them
# with configs/default.yaml but gpu.wait: block (the config key reaches the
# engine), sends every query through /search 32 at a time with curl and
# then the scheduler's and the GPU's series of /metrics and /stats, and
# stops the server with SIGTERM. Its log and answers go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/serve-out}
B=.device/gpusearch
W=$(mktemp -d)
mkdir -p "$OUT"
{ nvidia-smi -L; nproc; } >"$OUT/machine.txt" 2>&1
$B gen index --docs 200000 --seed 2 --codec gpu-bp256 --out "$W/s" --quiet --json >/dev/null 2>>"$OUT/serve.log"
$B gen queries --index "$W/s" --n 300 --seed 3 --out "$W/q.txt" 2>>"$OUT/serve.log"
sed 's/^\(  wait: \)auto/\1block/' configs/default.yaml >"$W/cfg.yaml"
grep -n "wait:" "$W/cfg.yaml" >>"$OUT/serve.log"
$B serve --config "$W/cfg.yaml" --index "$W/s" --addr 127.0.0.1:18080 2>>"$OUT/serve.log" &
pid=$!
for _ in $(seq 100); do
	curl -sf http://127.0.0.1:18080/healthz >/dev/null && break
	sleep 0.2
done
echo "== /search status codes (300 queries, 32 at a time)"
cut -f2 "$W/q.txt" | xargs -P 32 -I{} curl -s -G --data-urlencode "q={}" --data-urlencode "engine=auto" \
	-o /dev/null -w '%{http_code}\n' http://127.0.0.1:18080/search | sort | uniq -c
curl -s -G --data-urlencode "q=$(head -1 "$W/q.txt" | cut -f2)" http://127.0.0.1:18080/search >"$OUT/search.json"
echo "== /metrics (scheduler and GPU series)"
curl -s http://127.0.0.1:18080/metrics | grep -E '^gpusearch_(gpu|scheduler)_' | tee "$OUT/metrics.txt"
curl -s http://127.0.0.1:18080/stats >"$OUT/stats.json"
kill -TERM $pid
wait $pid
echo "serve exit status $?"
tail -5 "$OUT/serve.log"
rm -rf "$W"
