#!/bin/sh
# snippets-ab.sh measures what snippets add to a request on the RFCs,
# rust-doc and the sample crawl with this tree's harness and server
# against BASE's, in turn: peers snippets six times a build on the RFCs
# (three on the sample crawl and rust-doc), then peers rest eight times at
# a server of each, who goes first alternating. Each build reads an index
# it built itself (the two store formats differ: a build before the
# word-coded store cannot read this one's, nor this one BASE's), with one
# parsing worker, timed; every answer goes to OUT as JSON, the builds'
# times and peak memory to OUT/time-CRAWL-BUILD.txt. Indexes already in
# OUT are kept.
#
#   BASE=933d801 bench/peers/snippets-ab.sh OUT   # from the repository root; RFCs from doc-rfc
set -eu
OUT=$(realpath -m "${1:?usage: bench/peers/snippets-ab.sh OUT}")
BASE=${BASE:-main}
ROOT=$(pwd)
mkdir -p "$OUT/bin" "$OUT/base"
go build -o "$OUT/bin/gpusearch-new" ./cmd/gpusearch
(cd bench/peers && go build -o "$OUT/bin/peers-new" .)
git archive "$BASE" | tar -x -C "$OUT/base"
(cd "$OUT/base" && go build -o "$OUT/bin/gpusearch-base" ./cmd/gpusearch)
(cd "$OUT/base/bench/peers" && go build -o "$OUT/bin/peers-base" .)
[ -d "$OUT/rfc" ] || "$OUT/bin/gpusearch-new" convert-collection --format rfc --out "$OUT/rfc" /usr/share/doc/RFC
for c in rfc examples rust; do
	case $c in
	rfc) crawl=$OUT/rfc/crawl ;;
	examples) crawl=$ROOT/examples/crawl ;;
	rust) crawl=/usr/share/doc/rust-doc/html ;;
	esac
	for v in base new; do
		[ -d "$OUT/ix-$c-$v" ] && continue
		/usr/bin/time -f "%e s %M KB" -o "$OUT/time-$c-$v.txt" "$OUT/bin/gpusearch-$v" index --quiet --force --workers 1 \
			--store text --positions=true --out "$OUT/ix-$c-$v" "$crawl"
	done
done
RQ="--queries $OUT/rfc/queries.txt --limit 500 --repeat 1"
for i in 1 2 3 4 5 6; do
	for v in base new; do "$OUT/bin/peers-$v" snippets --index "$OUT/ix-rfc-$v" $RQ >"$OUT/snip-rfc-$v-$i.json"; done
done
for i in 1 2 3; do
	for v in base new; do
		"$OUT/bin/peers-$v" snippets --index "$OUT/ix-examples-$v" --queries "$ROOT/examples/queries.txt" --repeat 3 >"$OUT/snip-examples-$v-$i.json"
		"$OUT/bin/peers-$v" snippets --index "$OUT/ix-rust-$v" --queries "$ROOT/examples/queries.txt" --repeat 2 >"$OUT/snip-rust-$v-$i.json"
	done
done
printf 'server:\n  cache_entries: 0\n' >"$OUT/bench.yaml"
"$OUT/bin/gpusearch-base" serve --config "$OUT/bench.yaml" --index "$OUT/ix-rfc-base" --addr 127.0.0.1:18171 2>/dev/null &
pb=$!
"$OUT/bin/gpusearch-new" serve --config "$OUT/bench.yaml" --index "$OUT/ix-rfc-new" --addr 127.0.0.1:18172 2>/dev/null &
pn=$!
sleep 5
for i in 1 2 3 4 5 6 7 8; do
	order="base new" && [ $((i % 2)) = 0 ] && order="new base"
	for v in $order; do
		port=18171 && [ $v = new ] && port=18172
		"$OUT/bin/peers-new" rest --addr 127.0.0.1:$port $RQ >"$OUT/rest-rfc-$v-$i.json"
	done
done
kill $pb $pn
wait $pb $pn || true
