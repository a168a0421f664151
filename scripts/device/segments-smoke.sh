#!/usr/bin/env bash
# GPU machine run: a server with a GPU follows an index through an update
# into segments. From the repository root, with .device/gpusearch (a CUDA
# build) carried:
#   OUT=... bash scripts/device/segments-smoke.sh
# Indexes the sample crawl and serves it (commit point watched every
# 200 ms), sends the sample queries with engine=auto, gpu and cpu, then
# changes 5% of the crawl, runs index --update (a second segment, with
# deletions in the first), waits for the reload and sends them again,
# then does it once more (a third segment: the reload shares the first
# two's device columns with the generation before): status codes per
# engine after each step, and how many answers of engine=gpu equal
# engine=cpu's (docids and scores, every mode), go to stdout, with the
# reloads' times, and the server's log to $OUT/serve.log. GPUSEARCH
# names another binary (a build without CUDA, to try the script here).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/segments-smoke-out}
B=${GPUSEARCH:-$(pwd)/.device/gpusearch}
W=$(mktemp -d)
mkdir -p "$OUT"
$B index --quiet --out "$W/ix" examples/crawl
printf 'server:\n  addr: 127.0.0.1:18081\n  index: %s\n  watch_interval: 200ms\n  cache_entries: 0\n  access_log: false\n' "$W/ix" >"$W/cfg.yaml"
$B serve --config "$W/cfg.yaml" 2>"$OUT/serve.log" &
pid=$!
for _ in $(seq 100); do
	curl -sf http://127.0.0.1:18081/healthz >/dev/null && break
	sleep 0.2
done
ask() { # ask LABEL: status codes of every sample query per engine
	for e in auto gpu cpu; do
		echo "== $1 engine=$e: $(cut -f2 examples/queries.txt | xargs -P 8 -I{} curl -s -G --data-urlencode "q={}" \
			--data-urlencode "engine=$e" -o /dev/null -w '%{http_code}\n' http://127.0.0.1:18081/search | sort | uniq -c | tr '\n' ' ')"
	done
}
compare() { # compare LABEL: engine=gpu's answers against engine=cpu's
	local same=0 differ=0
	for mode in and or andor; do
		while read -r q; do
			hits() { curl -s -G --data-urlencode "q=$q" --data-urlencode "engine=$1" --data-urlencode "mode=$mode" \
				--data-urlencode snippets=0 http://127.0.0.1:18081/search | python3 -c 'import json,sys; print([(h["docid"], h["score"]) for h in json.load(sys.stdin).get("hits", [])])'; }
			if [ "$(hits gpu)" = "$(hits cpu)" ]; then same=$((same + 1)); else differ=$((differ + 1)); echo "differs: $mode $q"; fi
		done < <(cut -f2 examples/queries.txt)
	done
	echo "== $1: engine=gpu answers equal to engine=cpu's: $same, different: $differ"
}
ask "one segment"
cp -al examples/crawl "$W/crawl"
for step in "two segments" "three segments"; do
	python3 scripts/change-crawl.py "$W/crawl" 0.05
	$B index --update --quiet --out "$W/ix" "$W/crawl"
	sleep 2
	ask "$step"
	compare "$step"
done
kill -TERM $pid
wait $pid
echo "serve exit status $?"
grep -iE "reload|generation|error" "$OUT/serve.log" | tail -12
rm -rf "$W"
