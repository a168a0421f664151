// Command peers measures gpusearch side by side with Lucene, Xapian and bleve
// on one crawl and one queries file: indexing time, index size, mean, median
// and 99th-percentile latency of single-threaded AND and OR queries at each
// k, and overlap@10 with gpusearch's results (package peer has the method).
//
// Usage, from bench/peers (its own Go module, so that the server never
// depends on the peers):
//
//	./install.sh    # once, as root: Lucene 8, Xapian 1.4, a JDK (Debian)
//	go run . --crawl DIR --queries FILE [--k 10,1000] [--json] [--plot FILE]
//	go run . plot --out FILE REPORT.json...
//
// A peer that is not installed is skipped with a message (and listed under
// "skipped" in the JSON report); gpusearch always runs, first, as the
// reference. --trec DIR also writes every run as a TREC run
// (DIR/ENGINE.MODE.K.run, docnos from the crawl's file names) for
// `gpusearch eval`. The plot command draws the latencies of one or more
// saved --json reports, one panel a report.
package main
