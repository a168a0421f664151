package queries

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	// Every codec family registers itself; indexes name their codecs.
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// TestRun measures the CPU engines and both bitmap baselines over the
// sample crawl in two modes, on 1 and GOMAXPROCS goroutines: a row for
// each, in order, with ordered percentiles, and fewer postings scored by
// BMW and DAAT AND than by the exhaustive scorer.
func TestRun(t *testing.T) {
	ix := testindex.Crawl(t, indexer.Options{Workers: 2, DocIDCodec: "varint-SU", FreqCodec: "varint-SU"})
	names := []string{"exhaustive", "daat", "maxscore", "wand", "bmw", "bitmap-nocache", "bitmap"}
	var engines []Engine
	for _, name := range names {
		e, err := query.New(ix, name)
		if err != nil {
			t.Fatal(err)
		}
		engines = append(engines, Engine{name, e})
	}
	texts := []string{"parse json", "http server timeout", "the", "read file line by line", "qwxzvk", "system"}
	threads := []int{1}
	if n := runtime.GOMAXPROCS(0); n > 1 {
		threads = append(threads, n)
	}
	rep, err := Run(context.Background(), engines, Options{Texts: texts, Modes: []query.Mode{query.And, query.Or}, K: 10, Threads: threads, MinTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	wantEngines := []string{"exhaustive", "daat", "maxscore", "wand", "bmw", "bitmap", "bitmap"}
	if want := 2 * len(names) * len(threads); len(rep.Results) != want {
		t.Fatalf("Run: %d rows, want %d (2 modes x %d engines x threads %v)", len(rep.Results), want, len(names), threads)
	}
	postings := map[string]float64{}
	for i, r := range rep.Results {
		wantMode := []string{"and", "or"}[i/(len(names)*len(threads))]
		wantEngine := wantEngines[i/len(threads)%len(names)]
		if r.Engine != wantEngine || r.Mode != wantMode || r.Threads != threads[i%len(threads)] {
			t.Errorf("row %d: engine %s, mode %s, threads %d; want %s, %s, %d", i, r.Engine, r.Mode, r.Threads, wantEngine, wantMode, threads[i%len(threads)])
		}
		if r.Queries != len(texts) || r.Algorithm == "" || r.QPS <= 0 || r.BlocksDecoded <= 0 || r.P50US > r.P95US || r.P95US > r.P99US {
			t.Errorf("row %d = %+v: want %d queries, an algorithm, ordered percentiles and positive rates", i, r, len(texts))
		}
		postings[r.Algorithm+"/"+r.Mode] = r.PostingsScored
	}
	if postings["bitmap-cached/or"] == 0 {
		t.Errorf("Run: no bitmap-cached row")
	}
	if postings["bmw/or"] >= postings["exhaustive/or"] || postings["and/and"] >= postings["exhaustive/and"] {
		t.Errorf("Run: postings scored %v; want bmw and DAAT AND below exhaustive", postings)
	}
	var b bytes.Buffer
	if err := rep.Print(&b); err != nil || !strings.Contains(b.String(), "p99_us") || !strings.Contains(b.String(), "bitmap-cached") {
		t.Errorf("Print wrote %q, %v", b.String(), err)
	}
}
