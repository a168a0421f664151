package query

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
)

// benchIndex is the index and queries BenchmarkEngine runs: the index in
// $GPUSEARCH_BENCH_INDEX, opened as the server opens it (AutoMemory), with
// the queries file $GPUSEARCH_BENCH_QUERIES when both are set, else a synthetic Zipfian collection of 200,000
// documents with 200 random queries.
func benchIndex(b *testing.B) (*index.Index, []Query) {
	b.Helper()
	dir, qfile := os.Getenv("GPUSEARCH_BENCH_INDEX"), os.Getenv("GPUSEARCH_BENCH_QUERIES")
	if dir == "" || qfile == "" {
		spec := corpusSpec{Docs: 200_000, Vocab: 20_000, Zipf: 1, AvgLen: 150, Seed: 11, Codec: "varint-SU"}
		ix := openCorpus(b, spec)
		rng := rand.New(rand.NewPCG(12, 13))
		var qs []Query
		for range 200 {
			qs = append(qs, Query{Terms: randomQuery(rng, spec.Vocab), K: 10})
		}
		return ix, qs
	}
	ix, err := index.OpenWith(dir, index.AutoMemory)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	f, err := os.Open(qfile)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	a := analysis.New()
	var qs []Query
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if _, text, ok := strings.Cut(line, "\t"); ok {
			line = text
		}
		if q, err := Parse(a, line, Or, 10); err == nil && len(q.Terms) > 0 {
			qs = append(qs, q)
		}
	}
	return ix, qs
}

// BenchmarkEngine runs the whole query set once per iteration, per
// registered engine and mode; it reports time, postings scored and blocks
// decoded per query.
func BenchmarkEngine(b *testing.B) {
	ix, qs := benchIndex(b)
	engines := map[string]Engine{}
	names := Engines()
	for _, name := range names {
		e, err := New(ix, name)
		if err != nil {
			b.Fatal(err)
		}
		engines[name] = e
	}
	ctx := context.Background()
	for _, mode := range []Mode{And, Or} {
		for _, name := range names {
			e := engines[name]
			b.Run(name+"/"+string(mode), func(b *testing.B) {
				var postings, blocks int64
				for b.Loop() {
					for _, q := range qs {
						q.Mode = mode
						res, err := e.Search(ctx, q)
						if err != nil {
							b.Fatal(err)
						}
						postings += res.Stats.PostingsScored
						blocks += res.Stats.BlocksDecoded
					}
				}
				n := float64(b.N * len(qs))
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n/1e3, "us/query")
				b.ReportMetric(float64(postings)/n, "postings/query")
				b.ReportMetric(float64(blocks)/n, "blocks/query")
			})
		}
	}
}

// BenchmarkParse is the query analysis every search pays before its
// engine runs (UAX #29 words, lowercase, Porter2, duplicates merged), over
// the sample crawl's queries: the floor under any engine's time per query.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("../examples/queries.txt")
	if err != nil {
		b.Fatal(err)
	}
	var texts []string
	for line := range strings.Lines(string(data)) {
		if _, text, ok := strings.Cut(strings.TrimSpace(line), "\t"); ok {
			texts = append(texts, text)
		}
	}
	a := analysis.New()
	var terms int
	for b.Loop() {
		for _, t := range texts {
			q, _ := Parse(a, t, And, 10)
			terms += len(q.Terms)
		}
	}
	n := float64(b.N * len(texts))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n/1e3, "us/query")
	b.ReportMetric(float64(terms)/n, "terms/query")
}
