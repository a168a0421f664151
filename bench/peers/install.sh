#!/bin/sh
# install.sh installs the peers that bench/peers compares gpusearch with,
# from Debian's registry only (bookworm): Lucene 8 (jars under
# /usr/share/java), Xapian 1.4's Python bindings (for /usr/bin/python3) and,
# when the machine has no javac, a headless JDK to compile the Lucene
# harness. bleve needs nothing here: it is a Go module dependency of
# bench/peers. Run as root (or through sudo).
set -eu
apt-get update
apt-get install -y liblucene8-java python3-xapian
if ! command -v javac >/dev/null 2>&1; then
	apt-get install -y default-jdk-headless
fi
