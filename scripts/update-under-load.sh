#!/usr/bin/env bash
# Serves an index under a steady query load while it is updated and merged
# (docs/updates.md): are answers ever lost, mixed or slowed?
#
# Builds an index of CRAWL, serves it (result cache off, the commit point
# watched every 200 ms) and runs `bench http` twice: a steady run, then a
# run of the same length during which SHARE of the crawl's files change,
# `index --update` writes them (a new segment) and `merge --all` merges
# the segments. Each commit is snapshotted (cp -al) as it lands, and every
# answer of the second run must equal the answer of one snapshot
# (`bench http --expect`). Writes WORKDIR/steady.json, WORKDIR/update.json
# and WORKDIR/summary.json.
#
#   bash scripts/update-under-load.sh CRAWL QUERIES WORKDIR [GPUSEARCH]
#
# Environment: SHARE (0.01), SECONDS_PER_RUN (40), CONCURRENCY (4),
# PORT (18089), MODE (and), INDEX_FLAGS.
set -euo pipefail
crawl=$1 queries=$2 work=$3 bin=$(readlink -f "${4:-./gpusearch}")
share=${SHARE:-0.01} secs=${SECONDS_PER_RUN:-40} conc=${CONCURRENCY:-4}
port=${PORT:-18089} mode=${MODE:-and} flags=${INDEX_FLAGS:-}
here=$(dirname "$(readlink -f "$0")")
mkdir -p "$work"
work=$(readlink -f "$work")
rm -rf "$work"/index "$work"/snap-* "$work"/crawl
"$bin" index $flags --quiet --out "$work/index" "$crawl"
cp -al "$work/index" "$work/snap-0"
cat >"$work/serve.yaml" <<YAML
server:
  addr: 127.0.0.1:$port
  index: $work/index
  cache_entries: 0
  access_log: false
  watch_interval: 200ms
YAML
"$bin" serve --config "$work/serve.yaml" 2>"$work/serve.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do
	curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break
	sleep 0.2
done
load() { # load NAME [--expect ...]: one bench http run into NAME.json
	local name=$1
	shift
	"$bin" bench http --addr "127.0.0.1:$port" --queries "$queries" --mode "$mode" \
		--concurrency "$conc" --duration "${secs}s" --warmup 1s --json "$@" >"$work/$name.json"
}
load steady
load update --expect "$work/snap-0,$work/snap-1,$work/snap-2" &
loader=$!
sleep $((secs / 4))
cp -al "$crawl" "$work/crawl"
python3 "$here/change-crawl.py" "$work/crawl" "$share"
/usr/bin/time -f '%e' -o "$work/update.time" "$bin" index --update --quiet --out "$work/index" "$work/crawl"
cp -al "$work/index" "$work/snap-1"
sleep $((secs / 4))
/usr/bin/time -f '%e' -o "$work/merge.time" "$bin" merge --all --quiet --out "$work/index"
cp -al "$work/index" "$work/snap-2"
wait $loader
python3 - "$work" "$crawl" "$share" <<'PY'
import json, sys
work, crawl, share = sys.argv[1], sys.argv[2], float(sys.argv[3])
runs = {n: json.load(open(f"{work}/{n}.json")) for n in ("steady", "update")}
out = {"crawl": crawl, "share": share,
       "update_s": float(open(f"{work}/update.time").read().split()[-1]),
       "merge_s": float(open(f"{work}/merge.time").read().split()[-1]),
       "check": runs["update"]["check"]}
for n, r in runs.items():
    run = r["runs"][0]
    out[n] = {k: run[k] for k in ("concurrency", "seconds", "qps", "p50_us", "p99_us", "max_us", "requests", "errors")}
json.dump(out, open(f"{work}/summary.json", "w"), indent=1)
print(json.dumps(out, indent=1))
PY
