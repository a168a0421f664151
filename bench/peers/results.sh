#!/bin/sh
# results.sh measures what docs/results.md reports, on the sample crawl,
# rust-doc and the RFCs: index size and build time with and without the
# document store and positions (gpusearch index, one worker), beside Lucene
# with positions and stored fields; phrase queries against Lucene's
# PhraseQuery; snippet cost per hit and per request; REST p50 with and
# without snippets; and queries without phrases before issue 32 (commit
# BASE) and now. Every answer goes to OUT as JSON (or inspect's text).
#
#   sudo bench/peers/install.sh    # once: Lucene, rust-doc, doc-rfc
#   bench/peers/results.sh OUT     # from the repository root; about 40 min on 2 cores
set -eu
OUT=$(realpath -m "${1:?usage: bench/peers/results.sh OUT}")
BASE=${BASE:-587c731}
ROOT=$(pwd)
mkdir -p "$OUT/bin" "$OUT/data"
D=$OUT/data GS=$OUT/bin/gpusearch P=$OUT/bin/peers
go build -o "$GS" ./cmd/gpusearch
(cd bench/peers && go build -o "$P" .)
rm -rf "$OUT/base" && mkdir "$OUT/base"
git archive "$BASE" | tar -x -C "$OUT/base"
(cd "$OUT/base/bench/peers" && go build -o "$OUT/bin/peers-base" .)
[ -d "$D/rfc" ] || "$GS" convert-collection --format rfc --out "$D/rfc" /usr/share/doc/RFC
crawl() { case $1 in examples) echo "$ROOT/examples/crawl" ;; rust) echo /usr/share/doc/rust-doc/html ;; rfc) echo "$D/rfc/crawl" ;; esac; }
queries() { case $1 in rfc) echo "$D/rfc/queries.txt" ;; *) echo "$ROOT/examples/queries.txt" ;; esac; }

# Sizes and build times, then the phrases: 500 runs of 2-3 title terms.
for c in examples rust rfc; do
	for store in none text; do
		for pos in false true; do
			ix=$D/ix-$c-$store-$pos
			"$GS" index --quiet --json --force --workers 1 --store $store --positions=$pos --out "$ix" "$(crawl $c)" >"$OUT/build-$c-$store-$pos.json"
			"$GS" inspect --json --index "$ix" >"$OUT/inspect-$c-$store-$pos.json"
		done
	done
	if [ $c = rfc ]; then
		"$P" phrases --titles "$D/rfc/queries.txt" >"$D/phrases-$c.txt"
	else
		"$P" phrases --index "$D/ix-$c-text-true" >"$D/phrases-$c.txt"
	fi
done

# Lucene beside gpusearch on the same extracted text: docs and freqs only,
# with positions, then positions and stored title and text with the phrase
# runs.
for c in examples rust rfc; do
	w=20000 && [ $c = rfc ] && w=2000
	for f in plain positions; do
		flag= && [ $f = positions ] && flag=--positions
		(cd bench/peers && "$P" --crawl "$(crawl $c)" --queries "$(queries $c)" --engines gpusearch,lucene $flag --modes and \
			--k 10 --limit 20 --warmup-queries 20 --work "$OUT/work-$c" --json >"$OUT/$f-$c.json")
	done
	(cd bench/peers && "$P" --crawl "$(crawl $c)" --queries "$D/phrases-$c.txt" --engines gpusearch,lucene --positions --store text \
		--modes phrase --k 10 --repeat 3 --warmup-queries $w --work "$OUT/work-$c" --json >"$OUT/phrase-$c.json")
done

# Do both engines match the same documents for every phrase? All hits of
# each, as TREC runs; the (query, document) pairs must be equal.
for c in examples rust rfc; do
	(cd bench/peers && "$P" --crawl "$(crawl $c)" --queries "$D/phrases-$c.txt" --engines gpusearch,lucene --positions \
		--modes phrase --k 100000 --warmup-queries 0 --work "$OUT/work-$c" --trec "$OUT/trec-$c" --json >/dev/null)
	for e in gpusearch lucene; do
		awk '{print $1, $3}' "$OUT/trec-$c/$e.phrase.100000.run" | sort >"$OUT/trec-$c/$e.pairs"
	done
	if cmp -s "$OUT/trec-$c/gpusearch.pairs" "$OUT/trec-$c/lucene.pairs"; then
		echo same >"$OUT/phrase-sets-$c.txt"
	else
		echo differ >"$OUT/phrase-sets-$c.txt"
	fi
done

# Queries without phrases, before and now, in turn.
for i in 1 2; do
	(cd "$OUT/base/bench/peers" && "$OUT/bin/peers-base" --crawl "$ROOT/examples/crawl" --queries "$ROOT/examples/queries.txt" \
		--engines gpusearch --repeat 5 --json >"$OUT/before-examples-$i.json")
	(cd bench/peers && "$P" --crawl "$ROOT/examples/crawl" --queries "$ROOT/examples/queries.txt" \
		--engines gpusearch --positions --store text --repeat 5 --json >"$OUT/after-examples-$i.json")
done
(cd "$OUT/base/bench/peers" && "$OUT/bin/peers-base" --crawl "$D/rfc/crawl" --queries "$D/rfc/queries.txt" --limit 2000 --k 10 \
	--engines gpusearch --warmup-queries 2000 --work "$OUT/work-rfc" --json >"$OUT/before-rfc.json")
(cd bench/peers && "$P" --crawl "$D/rfc/crawl" --queries "$D/rfc/queries.txt" --limit 2000 --k 10 \
	--engines gpusearch --positions --store text --warmup-queries 2000 --work "$OUT/work-rfc" --json >"$OUT/after-rfc.json")

# Snippets in process, then over REST (cache off) with and without.
for i in 1 2 3; do
	"$P" snippets --index "$D/ix-examples-text-true" --queries "$ROOT/examples/queries.txt" --repeat 3 >"$OUT/snip-examples-$i.json"
	"$P" snippets --index "$D/ix-rfc-text-true" --queries "$D/rfc/queries.txt" --limit 500 --repeat 1 >"$OUT/snip-rfc-$i.json"
done
"$P" snippets --index "$D/ix-rust-text-true" --queries "$ROOT/examples/queries.txt" --repeat 2 >"$OUT/snip-rust-1.json"
printf 'server:\n  cache_entries: 0\n' >"$D/bench.yaml"
for c in examples rfc; do
	"$GS" serve --config "$D/bench.yaml" --index "$D/ix-$c-text-true" --addr 127.0.0.1:18093 2>/dev/null &
	pid=$!
	sleep 3
	for i in 1 2 3; do
		"$P" rest --addr 127.0.0.1:18093 --queries "$(queries $c)" --limit 500 --repeat 1 >"$OUT/rest-$c-$i.json"
	done
	kill $pid
	wait $pid || true
done
