#!/usr/bin/env bash
# Starts a gpusearch cluster on loopback (docs/cluster.md): an etcd, one
# `gpusearch serve` per replica of each shard, and a broker on PORT;
# returns once the broker answers /healthz (every shard has a replica),
# leaving a supervisor that stops everything it started on SIGTERM.
#
#   bash scripts/cluster-local.sh SHARDS_DIR REPLICAS PORT
#
# SHARDS_DIR is a sharded collection (gpusearch index --shards N, or
# gpusearch split: SHARDS_DIR/shard-00 ...), or a plain index (one shard).
# Ports: the broker on PORT, etcd on PORT+1 (clients) and PORT+2 (peers),
# the nodes on PORT+3 onwards. Environment: GPUSEARCH (the binary; default:
# built from this checkout into the work directory), WORKDIR (logs, etcd's
# data and the generated config; default: a new temporary directory),
# CACHE_ENTRIES (the nodes' and the broker's result cache sizes, 10000;
# 0 to measure the shards rather than the caches).
# Prints the supervisor's pid: `kill PID` stops the cluster.
set -euo pipefail
if (($# != 3)); then
	echo "usage: $0 SHARDS_DIR REPLICAS PORT" >&2
	exit 2
fi
dir=$(readlink -f "$1") replicas=$2 port=$3
here=$(dirname "$(readlink -f "$0")")
work=${WORKDIR:-$(mktemp -d /tmp/gpusearch-cluster-XXXXXX)}
mkdir -p "$work"
work=$(readlink -f "$work")
command -v etcd >/dev/null || { echo "cluster-local: no etcd binary: apt-get install etcd-server" >&2; exit 1; }
[[ $replicas =~ ^[1-9][0-9]*$ ]] || { echo "cluster-local: REPLICAS=$replicas: want a positive integer" >&2; exit 2; }
if [[ -f $dir/shards.json ]]; then
	shards=("$dir"/shard-*)
elif [[ -f $dir/meta.json ]]; then
	shards=("$dir")
else
	echo "cluster-local: $dir is neither a sharded collection (shards.json) nor an index (meta.json)" >&2
	exit 1
fi
bin=${GPUSEARCH:-}
if [[ -z $bin ]]; then
	bin=$work/gpusearch
	(cd "$here/.." && go build -tags prod -o "$bin" ./cmd/gpusearch)
fi
bin=$(readlink -f "$bin")

# The supervisor: this script again, in the background, with SUPERVISE set.
if [[ -z ${SUPERVISE:-} ]]; then
	rm -f "$work/ready" "$work/failed"
	SUPERVISE=1 GPUSEARCH=$bin WORKDIR=$work setsid bash "$0" "$@" </dev/null >"$work/supervisor.log" 2>&1 &
	sup=$!
	for _ in $(seq 600); do
		if [[ -f $work/ready ]]; then
			echo "cluster up: broker http://127.0.0.1:$port/ over ${#shards[@]} shard(s) x $replicas replica(s); logs in $work; stop with: kill $sup"
			echo "$sup"
			exit 0
		fi
		if [[ -f $work/failed ]] || ! kill -0 "$sup" 2>/dev/null; then
			echo "cluster-local: the cluster did not come up; logs in $work:" >&2
			tail -n 20 "$work"/*.log >&2 || true
			exit 1
		fi
		sleep 0.1
	done
	echo "cluster-local: the broker did not answer /healthz within 60s; logs in $work" >&2
	kill "$sup" 2>/dev/null || true
	exit 1
fi

pids=()
stop() { # the broker and the nodes (which leave etcd), then etcd
	trap - TERM INT
	for ((i = ${#pids[@]} - 1; i >= 1; i--)); do kill -TERM "${pids[i]}" 2>/dev/null || true; done
	((${#pids[@]} > 1)) && wait "${pids[@]:1}" 2>/dev/null || true
	((${#pids[@]})) && kill -TERM "${pids[0]}" 2>/dev/null || true
	wait || true
	exit 0
}
trap stop TERM INT
fail() { echo "cluster-local: $*" >&2; touch "$work/failed"; stop; }

etcd --name local --data-dir "$work/etcd" \
	--listen-client-urls "http://127.0.0.1:$((port + 1))" --advertise-client-urls "http://127.0.0.1:$((port + 1))" \
	--listen-peer-urls "http://127.0.0.1:$((port + 2))" --initial-advertise-peer-urls "http://127.0.0.1:$((port + 2))" \
	--initial-cluster "local=http://127.0.0.1:$((port + 2))" --logger zap --log-level warn >"$work/etcd.log" 2>&1 &
pids+=($!)
for _ in $(seq 200); do
	curl -fs "http://127.0.0.1:$((port + 1))/health" >/dev/null && break
	sleep 0.1
done
curl -fs "http://127.0.0.1:$((port + 1))/health" >/dev/null || fail "etcd did not start"

cat >"$work/cluster.yaml" <<YAML
server:
  access_log: false
  cache_entries: ${CACHE_ENTRIES:-10000}
broker:
  cache_entries: ${CACHE_ENTRIES:-10000}
cluster:
  endpoints: [http://127.0.0.1:$((port + 1))]
  prefix: /gpusearch-local-$port
YAML

n=0
for shard in "${shards[@]}"; do
	for ((r = 0; r < replicas; r++)); do
		addr=127.0.0.1:$((port + 3 + n))
		"$bin" serve --config "$work/cluster.yaml" --index "$shard" --addr "$addr" >"$work/node-$n.log" 2>&1 &
		pids+=($!)
		n=$((n + 1))
	done
done
"$bin" broker --config "$work/cluster.yaml" --addr "127.0.0.1:$port" >"$work/broker.log" 2>&1 &
pids+=($!)
for _ in $(seq 550); do
	if curl -fs "http://127.0.0.1:$port/healthz" >/dev/null; then
		touch "$work/ready"
		break
	fi
	sleep 0.1
done
[[ -f $work/ready ]] || fail "the broker did not answer /healthz"
while :; do
	wait -n || true
	sleep 1 # a process that died stays dead: the supervisor keeps the others until SIGTERM
done
