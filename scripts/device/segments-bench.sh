#!/usr/bin/env bash
# GPU machine run, its CPU only: query latency over the merge policy's
# steady state against one merged segment of the same documents
# (docs/updates.md), on one quiet core of the host. scripts/segments.sh
# makes the indexes here (INDEX_FLAGS="--store none --positions=false"
# keeps them small: a query reads neither); pack its WORKDIR's ix-merged
# and ix-policy, and the queries, as seg/{merged,policy,queries.txt} into
# .device/corpora/seg.tgz (any other index directory beside them, such as
# POLICY_SNAPSHOTS' ix-policy-9 as seg/policy-9, is benchmarked too), then
# carry it and .device/gpusearch(.gz):
#   OUT=... bash scripts/device/segments-bench.sh
# ROUNDS (5) rounds, each benchmarking AND and OR top-10 on one thread
# over every index interleaved (`bench queries --index A,B,...`: each
# query on each index in turn, which holds their ratio steady), CPU (2)
# the core. $OUT gets cpu.txt and segments-bench.jsonl, one
# `bench queries --json` answer a line, its round added.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/segments-bench-out}
mkdir -p "$OUT"
lscpu >"$OUT/cpu.txt"
. scripts/device/lib.sh
unpack_device
bin=.device/gpusearch data=.device/corpora/seg
indexes=$(cd "$data" && for d in */; do printf '%s,' "$data/${d%/}"; done)
for round in $(seq 1 "${ROUNDS:-5}"); do
	taskset -c "${CPU:-2}" "$bin" bench queries --index "${indexes%,}" --queries "$data/queries.txt" \
		--engine cpu --mode and,or --threads 1 --min-time 3s --json |
		python3 -c 'import json,sys; d=json.load(sys.stdin); d["round"]=int(sys.argv[1]); print(json.dumps(d))' "$round" >>"$OUT/segments-bench.jsonl"
done
echo "segments-bench: $(wc -l <"$OUT/segments-bench.jsonl") rounds"
