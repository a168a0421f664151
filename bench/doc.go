// Package bench holds the benchmark drivers behind `gpusearch bench` that
// measure building blocks: the codecs on the first paper's synthetic data
// (MeasureCodec, with the generators of datagen.go), the intersection
// algorithms (Intersect), and the summaries of an index build
// (SummarizeIndex, SummarizeGen). The other harnesses live in
// subpackages, each taking an options struct and returning a report
// struct: costs (fit, simulate, bound), load, httpload, queries and
// gpubench; latency summarizes durations for all of them and for
// bench/peers. Results are filed in docs/ with the machine and the
// command that produced them. The peer comparisons (Lucene, Xapian,
// bleve) live in bench/peers, a module of its own so that the server
// never depends on them.
package bench
