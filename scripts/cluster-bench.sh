#!/usr/bin/env bash
# Measures a loopback cluster (docs/cluster.md): the broker's overhead over
# its slowest shard and its throughput with 1, 2 and 4 shard processes,
# against one node serving the whole index. Splits INDEX into WORKDIR/shN,
# starts each cluster with scripts/cluster-local.sh (one replica a shard,
# result caches off) and runs `gpusearch bench http` against the broker
# (concurrency 1: latency; CONCURRENCY: throughput) and against shard 0's
# node alone (concurrency 1). ROUNDS rounds alternate the configurations;
# WORKDIR/summary.json has each one's medians over the rounds.
#
#   bash scripts/cluster-bench.sh INDEX QUERIES WORKDIR [GPUSEARCH]
#
# Environment: ROUNDS (2), SECONDS_PER_RUN (4), CONCURRENCY (8), PORT (18800),
# MODE (andor), SHARDS ("1 2 4").
set -euo pipefail
idx=$(readlink -f "$1") queries=$(readlink -f "$2") work=$3 bin=$(readlink -f "${4:-./gpusearch}")
rounds=${ROUNDS:-2} secs=${SECONDS_PER_RUN:-4} conc=${CONCURRENCY:-8} port=${PORT:-18800} mode=${MODE:-andor}
shards=${SHARDS:-1 2 4}
here=$(dirname "$(readlink -f "$0")")
mkdir -p "$work"
work=$(readlink -f "$work")
for n in $shards; do
	[[ -f $work/sh$n/shards.json ]] || "$bin" split --quiet --shards "$n" "$idx" "$work/sh$n"
done
bench() { # ADDR CONCURRENCY OUT
	"$bin" bench http --addr "$1" --queries "$queries" --concurrency "$2" --duration "${secs}s" --warmup 1s \
		--mode "$mode" --no-snippets --json >"$3"
}
for ((r = 1; r <= rounds; r++)); do
	# One node over the whole index: the baseline.
	cat >"$work/whole.yaml" <<YAML
server:
  addr: 127.0.0.1:$port
  index: $idx
  cache_entries: 0
  access_log: false
YAML
	"$bin" serve --config "$work/whole.yaml" 2>"$work/whole.log" &
	pid=$!
	for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
	bench "127.0.0.1:$port" 1 "$work/r$r-whole-c1.json"
	bench "127.0.0.1:$port" "$conc" "$work/r$r-whole-c$conc.json"
	kill "$pid"
	wait "$pid" || true
	for n in $shards; do
		sup=$(CACHE_ENTRIES=0 GPUSEARCH=$bin WORKDIR=$work/cluster-$n bash "$here/cluster-local.sh" "$work/sh$n" 1 "$port" | tail -n 1)
		bench "127.0.0.1:$port" 1 "$work/r$r-broker$n-c1.json"
		curl -fs "http://127.0.0.1:$port/stats" >"$work/r$r-broker$n-stats.json"
		bench "127.0.0.1:$((port + 3))" 1 "$work/r$r-shard$n-c1.json"
		bench "127.0.0.1:$port" "$conc" "$work/r$r-broker$n-c$conc.json"
		kill "$sup"
		while kill -0 "$sup" 2>/dev/null; do sleep 0.1; done
	done
done
python3 - "$work" "$rounds" "$conc" "$shards" "$mode" <<'PY'
import json, statistics, sys
work, rounds, conc, shards, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split(), sys.argv[5]
def run(name):
    return [json.load(open(f"{work}/r{r}-{name}.json"))["runs"][0] for r in range(1, rounds + 1)]
def med(xs):
    return round(statistics.median(xs), 1)
out = {"mode": mode, "rounds": rounds, "concurrency": int(conc), "configs": []}
w1, wc = run("whole-c1"), run(f"whole-c{conc}")
out["configs"].append({"name": "one node, whole index", "p50_us": med([x["p50_us"] for x in w1]),
    "p99_us": med([x["p99_us"] for x in w1]), "qps": med([x["qps"] for x in wc])})
for n in shards:
    b1, bc, s1 = run(f"broker{n}-c1"), run(f"broker{n}-c{conc}"), run(f"shard{n}-c1")
    st = [json.load(open(f"{work}/r{r}-broker{n}-stats.json"))["broker"] for r in range(1, rounds + 1)]
    out["configs"].append({"name": f"broker over {n} shard process(es)", "p50_us": med([x["p50_us"] for x in b1]),
        "p99_us": med([x["p99_us"] for x in b1]), "qps": med([x["qps"] for x in bc]),
        "shard0_alone_p50_us": med([x["p50_us"] for x in s1]),
        "overhead_p50_us": med([x["overhead_p50_us"] for x in st]), "overhead_p99_us": med([x["overhead_p99_us"] for x in st]),
        "errors": sum(x["errors"] for x in b1 + bc)})
json.dump(out, open(f"{work}/summary.json", "w"), indent=1)
print(json.dumps(out, indent=1))
PY
