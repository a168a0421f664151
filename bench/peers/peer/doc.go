// Package peer measures gpusearch side by side with the search engines people
// would pick instead (Lucene, Xapian, bleve) on one crawl and one queries file.
//
// # Pipeline
//
// WriteCorpus walks the crawl as indexer.Build does (indexer.Documents) and
// extracts every document's text once (indexer.Document.Text, the same HTML
// extraction gpusearch indexes), so that no engine's HTML parser decides what
// it sees. It writes that text twice: as a crawl of plain-text files named
// "%08d.txt" in docid order, which gpusearch indexes with indexer.Build (URL
// order then equals corpus order), and as a TSV file, "name<TAB>text" a line
// with tabs and line breaks turned into spaces (word separators for every
// analyzer here), which the peers read. Document i is line i in every engine,
// and each engine stores its name ("%08d.txt") as gpusearch's document table
// does, so index sizes compare like with like.
//
// Bench then, for each Engine in turn: builds its index in a fresh directory
// (the engine reports its own build time), measures the directory's size (the
// sum of its files' sizes), and answers the queries single-threaded for every
// mode (and, or) and k: Config.Warmup untimed passes over the queries (page
// cache, JIT), then Config.Repeat timed ones. What a query's time covers is
// the engine's own: analysing the text, building the query and running it to
// a ranked top k; turning the hits into document names is not timed. Each
// query is timed twice, by the wall clock and by the searching thread's CPU
// clock (Linux CLOCK_THREAD_CPUTIME_ID, Java's ThreadMXBean, Python's
// thread_time_ns): on a shared machine whose load exceeds its cores, waiting
// for a core inflates the wall times by whatever the neighbours do, and the
// CPU times are the ones to compare. Work that an engine does on other threads
// (garbage collection, JIT compilation) counts in neither.
//
// The first engine is the reference, gpusearch: every other engine's
// overlap@10 is the mean over queries of |top10(engine) ∩ top10(gpusearch)| /
// |top10(gpusearch)|, over the queries on which gpusearch has at least one
// hit, with the top 10 of the same mode and k.
//
// # Engines
//
// GPUSearch runs in-process through the packages (indexer.Build with one
// worker, query.New(ix, "cpu")). Engines in other processes speak the harness
// protocol (Harness): "index CORPUS INDEXDIR" prints {"version", "docs",
// "index_ns"}; "search INDEXDIR QUERIES OUTDIR WARMUP REPEAT KEEP MODE:K..."
// writes OUTDIR/MODE-K.hits (a line a query, "id score id score ...", the
// first KEEP hits) and prints {"runs":[{"mode","k","wall_ns":[...],
// "cpu_ns":[...]}]}, REPEAT values a query, pass by pass. The Lucene and
// Xapian harnesses and the in-process bleve engine live in sibling packages.
//
// # Decisions
//
// Index builds are single-threaded where the engine allows it (gpusearch: one
// parsing worker; Lucene: one indexing thread and a serial merge scheduler;
// Xapian is single-threaded; bleve's scorch analyses and merges in its own
// goroutines and cannot be restricted short of GOMAXPROCS). Each engine ends
// its build with what its users run before serving a static collection:
// gpusearch's one merged index, Lucene's forceMerge(1), Xapian's compact,
// bleve's ForceMerge to one segment. Percentiles are nearest-rank.
package peer
