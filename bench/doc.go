// Package bench holds the benchmark drivers behind `gpusearch bench`: data
// generators from the papers and the measurement loops. Results are filed
// in docs/ with the machine and the command that produced them. The peer
// comparisons (Lucene, Xapian, bleve) live in bench/peers, a module of its
// own so that the server never depends on them.
package bench
