// Package bench holds the benchmark drivers behind `gpusearch bench` that
// measure building blocks: the codecs on the first paper's synthetic data
// (MeasureCodec, with the generators of datagen.go), the intersection
// algorithms (Intersect), and the summaries that index, gen index and
// compress print (SummarizeIndex, SummarizeGen, SummarizeCompress). The
// other harnesses live in subpackages, each taking an options struct and
// returning a report struct: costs (fit, simulate, bound), load, httpload,
// queries and gpubench; latency summarizes durations for all of them and
// for bench/peers, and args reads the queries files and comma-separated
// lists their command lines name. Each harness's Flags (or Options)
// declare its command-line flags (AddFlags), check them (Complete) and
// open what it measures (Run), so that cmd/gpusearch only wires. Results
// are filed in docs/ with the machine and the command that produced them.
// The peer comparisons (Lucene, Xapian, bleve) live in bench/peers, a
// module of its own so that the server never depends on them.
package bench
