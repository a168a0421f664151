#!/bin/bash
# build.sh builds the PISA tools that bench/peers runs (parse_collection,
# invert, compress_inverted_index, create_wand_data, queries,
# evaluate_queries) from GitHub snapshots that are already on the machine;
# it downloads no source. Debian packages come from the machine's apt
# registry (skip that step with NO_APT=1, e.g. when not root).
#
# usage: build.sh SNAPSHOTS BUILD_DIR
#   SNAPSHOTS  one directory per repository, named owner+name, each holding
#              a git directory (bare, or a clone) at SNAPSHOTS/owner+name/repo:
#              pisa-engine+pisa and the submodules listed below
#   BUILD_DIR  created if missing: BUILD_DIR/src (the source tree) and
#              BUILD_DIR/build (cmake); the tools land in BUILD_DIR/build/bin
#
# Pass BUILD_DIR/build/bin to bench/peers as --pisa-bin (or PISA_BIN).
# PISA_COMMIT picks the PISA commit (default: the one docs/peers.md was
# measured with). A submodule snapshot that lacks its pinned commit is
# checked out at its newest commit instead, with a line saying so; for
# spdlog that means building it against the pinned fmt (SPDLOG_FMT_EXTERNAL),
# because a newer spdlog bundles an fmt that clashes with PISA's.
#
# PISA_IDF1=1 builds the same-scoring variant ("pisa-idf1" in bench/peers):
# PISA's BM25 idf ln((N-df+0.5)/(df+0.5)) becomes gpusearch's and Lucene's
# ln(1+(N-df+0.5)/(df+0.5)) (one line of include/pisa/scorer/bm25.hpp), and only the tools that score are built:
# create_wand_data, queries and evaluate_queries. Build it into its own
# BUILD_DIR; the harness takes parse_collection, invert and
# compress_inverted_index from the stock build.
set -euo pipefail

if [ $# -ne 2 ]; then
	sed -n 2,28p "$0"
	exit 2
fi
SNAP=$(readlink -f "$1")
mkdir -p "$2"
DIR=$(readlink -f "$2")
PISA_COMMIT=${PISA_COMMIT:-69f2a83b85ecb619eb0fb54bc2bb676e38765266}
JOBS=${JOBS:-2}

if [ "${NO_APT:-0}" != 1 ]; then
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y cmake g++ make \
		libboost-all-dev libtbb-dev nlohmann-json3-dev pkg-config \
		autoconf automake libtool
fi

gitdir() { # the git directory of snapshot $1 (owner+name)
	local d=$SNAP/$1/repo
	if [ -d "$d/.git" ]; then d=$d/.git; fi
	[ -d "$d" ] || {
		echo "build.sh: no snapshot $d" >&2
		exit 1
	}
	echo "$d"
}

# checkout GITDIR COMMIT DEST: write COMMIT's files to DEST; falls back to
# the snapshot's HEAD when COMMIT is not in it.
checkout() {
	local g=$1 want=$2 dst=$3 use
	if git --git-dir="$g" cat-file -e "$want^{commit}" 2>/dev/null; then
		use=$want
	else
		use=$(git --git-dir="$g" rev-parse HEAD)
		echo "build.sh: $dst: pinned $want is not in the snapshot; using $use" >&2
	fi
	rm -rf "$dst"
	mkdir -p "$dst"
	# Large test files may be absent from a snapshot; they are not needed.
	git --git-dir="$g" --work-tree="$dst" checkout -f "$use" -- . 2>/dev/null || true
	echo "$dst $use"
}

PISA_GIT=$(gitdir pisa-engine+pisa)
checkout "$PISA_GIT" "$PISA_COMMIT" "$DIR/src"

# Submodule path -> snapshot. The others (benchmark, GSL, oneTBB, tbb,
# parallelstl, boost-cmake, CMake-codecov) are unused with the options below.
while read -r path snap; do
	pin=$(git --git-dir="$PISA_GIT" ls-tree "$PISA_COMMIT" "external/$path" | awk '{print $3}')
	checkout "$(gitdir "$snap")" "$pin" "$DIR/src/external/$path"
done <<LIST
FastPFor lemire+FastPFor
streamvbyte lemire+streamvbyte
MaskedVByte lemire+MaskedVByte
QMX amallia+QMX
simdcomp lemire+simdcomp
CLI11 CLIUtils+CLI11
mio mandreyel+mio
gumbo-parser google+gumbo-parser
Catch2 catchorg+Catch2
Porter2 pisa-engine+Porter2
KrovetzStemmer pisa-engine+KrovetzStemmer
warcpp pisa-engine+warcpp
trecpp pisa-engine+trecpp
wapopp pisa-engine+wapopp
fmt fmtlib+fmt
spdlog gabime+spdlog
range-v3 ericniebler+range-v3
rapidcheck emil-e+rapidcheck
taily pisa-engine+taily
LIST
# wapopp's own submodule.
WAPOPP_GIT=$(gitdir pisa-engine+wapopp)
wpin=$(git --git-dir="$WAPOPP_GIT" ls-tree HEAD external/json | awk '{print $3}')
checkout "$(gitdir nlohmann+json)" "$wpin" "$DIR/src/external/wapopp/external/json"

TARGETS=(parse_collection invert compress_inverted_index create_wand_data queries evaluate_queries)
if [ "${PISA_IDF1:-0}" = 1 ]; then
	BM25=$DIR/src/include/pisa/scorer/bm25.hpp
	sed -i 's|std::log((float(num_docs) - fdf + 0.5F) / (fdf + 0.5F))|std::log1p((float(num_docs) - fdf + 0.5F) / (fdf + 0.5F))|' "$BM25"
	grep -q 'std::log1p((float(num_docs)' "$BM25" || {
		echo "build.sh: PISA_IDF1: the idf line of $BM25 is not the expected one" >&2
		exit 1
	}
	TARGETS=(create_wand_data queries evaluate_queries)
fi

mkdir -p "$DIR/build"
cd "$DIR/build"
cmake ../src -DCMAKE_BUILD_TYPE=Release \
	-DPISA_BUILD_TOOLS=ON -DPISA_ENABLE_TESTING=OFF -DBUILD_TESTING=OFF \
	-DPISA_ENABLE_BENCHMARKING=OFF -DPISA_SYSTEM_BOOST=ON \
	-DPISA_SYSTEM_ONETBB=ON -DPISA_CI_BUILD=ON -DSPDLOG_FMT_EXTERNAL=ON
nice -n 19 make -j"$JOBS" "${TARGETS[@]}"
ls -l "$DIR/build/bin"
