#!/usr/bin/env bash
# Regenerates the CPU profiles that `go build` uses for profile-guided
# optimisation: cmd/gpusearch/default.pgo and bench/peers/default.pgo (the
# peers harness runs gpusearch's engine in its own process). The profile is
# a merge of
#   - building an index of the crawl (the indexer's hot paths), and
#   - `gpusearch bench queries` on one thread over that index with the
#     default codec and with bp128: engines cpu (DAAT AND, MaxScore OR), bmw and daat,
#     modes and and or, top 10 and top 1000.
#
#   scripts/pgo.sh [CRAWL_DIR QUERIES_FILE]
#
# Default: the sample crawl and its queries (examples/). The committed
# profiles come from the RFC collection (docs/peers.md, "Reproduce"):
#   scripts/pgo.sh rfc/crawl rfc/queries.txt
# The profile is an input of the build, not of the results: any profile
# gives bit-identical search results; a stale one only optimises less.
set -euo pipefail
cd "$(dirname "$0")/.."
crawl=${1:-examples/crawl}
queries=${2:-examples/queries.txt}
min_time=${MIN_TIME:-2s}
nq=${NQ:-1000}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The profiling binary is built without the current profile, so that the
# new one does not depend on the old one.
go build -pgo=off -o "$work/gpusearch" ./cmd/gpusearch
head -n "$nq" "$queries" >"$work/queries.txt"

profiles=()
for codec in default bp128; do
	ix=$work/ix-$codec
	codecflag=()
	[ "$codec" = default ] || codecflag=(--codec "$codec")
	"$work/gpusearch" index --quiet --workers 1 "${codecflag[@]}" \
		--cpuprofile "$work/index-$codec.prof" --out "$ix" "$crawl"
	profiles+=("$work/index-$codec.prof")
	for k in 10 1000; do
		p=$work/queries-$codec-$k.prof
		"$work/gpusearch" --cpuprofile "$p" bench queries --index "$ix" \
			--queries "$work/queries.txt" --engine cpu,bmw,daat \
			--mode and,or --threads 1 --k "$k" --min-time "$min_time" >/dev/null
		profiles+=("$p")
	done
done
go tool pprof -proto "${profiles[@]}" >"$work/merged.pgo" 2>/dev/null
cp "$work/merged.pgo" cmd/gpusearch/default.pgo
cp "$work/merged.pgo" bench/peers/default.pgo
ls -l cmd/gpusearch/default.pgo bench/peers/default.pgo
