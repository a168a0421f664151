#!/bin/sh
# install.sh installs the peers that bench/peers compares gpusearch with,
# from Debian's registry only (bookworm): Lucene 8 (jars under
# /usr/share/java), Xapian 1.4's Python bindings (for /usr/bin/python3) and,
# when the machine has no javac, a headless JDK to compile the Lucene
# harness. bleve needs nothing here: it is a Go module dependency of
# bench/peers. It also installs the two crawls the measurements use beside
# examples/crawl: rust-doc (the Rust documentation as HTML, 32k pages under
# /usr/share/doc/rust-doc/html) and doc-rfc (every RFC as text under
# /usr/share/doc/RFC, Debian non-free; `gpusearch convert-collection
# --format rfc` turns it into a crawl). Run as root (or through sudo).
# Where the machine's deb822 sources (debian.sources) list only the main
# component, it adds non-free there, which doc-rfc needs.
set -eu
src=/etc/apt/sources.list.d/debian.sources
if [ -f "$src" ] && grep -q '^Components: main$' "$src"; then
	sed -i 's/^Components: main$/Components: main non-free/' "$src"
fi
apt-get update
apt-get install -y liblucene8-java python3-xapian rust-doc doc-rfc
if ! command -v javac >/dev/null 2>&1; then
	apt-get install -y default-jdk-headless
fi
