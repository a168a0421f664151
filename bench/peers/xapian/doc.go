// Package xapian runs Xapian 1.4 (Debian's python3-xapian) as a bench/peers
// engine through harness.py, which it embeds and runs with Debian's
// /usr/bin/python3 (the python3 first on PATH may be another one, without
// the bindings). See harness.py for the protocol, the analysis and the
// BM25Weight parameters.
package xapian
