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
		engines = append(engines, Engine{Name: name, Engine: e})
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

// TestRunInterleaved measures two engines on two indexes interleaved: a
// row per engine and index, in order, each over every query and pass, the
// same index giving the same work per query whatever its place.
func TestRunInterleaved(t *testing.T) {
	ix := testindex.Crawl(t, indexer.Options{Workers: 2, DocIDCodec: "varint-SU", FreqCodec: "varint-SU"})
	var engines []Engine
	for _, label := range []string{"a", "b"} {
		for _, name := range []string{"daat", "exhaustive"} {
			e, err := query.New(ix, name)
			if err != nil {
				t.Fatal(err)
			}
			engines = append(engines, Engine{Name: name, Engine: e, Index: label})
		}
	}
	texts := []string{"parse json", "http server timeout", "the", "qwxzvk"}
	rep, err := Run(context.Background(), engines, Options{Texts: texts, Modes: []query.Mode{query.And, query.Or}, K: 10,
		Threads: []int{4}, MinTime: time.Millisecond, Interleave: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2*len(engines) {
		t.Fatalf("Run: %d rows, want %d", len(rep.Results), 2*len(engines))
	}
	for i, r := range rep.Results {
		e := engines[i%len(engines)]
		if r.Engine != e.Name || r.Index != e.Index || r.Threads != 1 || r.Mode != []string{"and", "or"}[i/len(engines)] {
			t.Errorf("row %d: %s on %q, %d threads, %s; want %s on %q, 1 thread", i, r.Engine, r.Index, r.Threads, r.Mode, e.Name, e.Index)
		}
		if r.Runs == 0 || r.Runs%len(texts) != 0 || r.CPUUS <= 0 || r.P50US > r.P99US {
			t.Errorf("row %d = %+v: want whole passes, a CPU time and ordered percentiles", i, r)
		}
		if other := rep.Results[i^2]; other.Runs != r.Runs || other.PostingsScored != r.PostingsScored {
			t.Errorf("rows %d and %d, one engine on the same index: %d and %d runs, %v and %v postings", i, i^2, r.Runs, other.Runs, r.PostingsScored, other.PostingsScored)
		}
	}
	var b bytes.Buffer
	if err := rep.Print(&b); err != nil || !strings.HasPrefix(strings.TrimSpace(b.String()), "index") {
		t.Errorf("Print wrote %q, %v; want an index column", b.String(), err)
	}
}
