package gpubench

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// fakeCacheEngine stands in for a GPU engine with a list cache.
type fakeCacheEngine struct{ query.Engine }

func (f fakeCacheEngine) CacheStats() (gpu.CacheStats, bool) { return gpu.CacheStats{}, true }
func (f fakeCacheEngine) Close() error                       { return nil }

// TestCache: the simulation's rows on the sample crawl, every policy and
// size and mode, hit rates that grow with the cache and reach their bound
// at the whole long lists; and the latency runs open a resident engine
// per mode and an engine per row.
func TestCache(t *testing.T) {
	ix := testindex.Crawl(t, indexer.Options{Workers: 2})
	texts := []string{"parse json", "http server timeout", "json decoder", "read file line by line", "http client", "parse url",
		"http server", "json encoder"}
	var opened []string
	o := CacheOptions{Texts: texts, Modes: []query.Mode{query.And, query.Or}, K: 10, Policies: gpu.CachePolicies,
		Fractions: []float64{0.25, 1}, Warmup: 0.25, LongListBytes: 256,
		Open: func(policy string, mb int64) (CacheEngine, error) {
			opened = append(opened, policy)
			return fakeCacheEngine{query.NewExhaustive(ix)}, nil
		}}
	rep, err := Cache(context.Background(), ix, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 8 || len(rep.Resident) != 2 || len(opened) != 10 || rep.Warmup != 2 {
		t.Fatalf("%d rows, %d resident runs, %d engines opened, warm-up %d: want 8, 2, 10, 2", len(rep.Rows), len(rep.Resident),
			len(opened), rep.Warmup)
	}
	if rep.Index.LongLists == 0 || rep.Index.LongBytes == 0 {
		t.Fatalf("index %+v: no long lists", rep.Index)
	}
	for i := 0; i < len(rep.Rows); i += 2 {
		small, whole := rep.Rows[i], rep.Rows[i+1]
		if small.Hits+small.Misses == 0 || small.HitRate > whole.HitRate || whole.Evictions != 0 {
			t.Errorf("%s %s: %+v then %+v", small.Mode, small.Policy, small, whole)
		}
		if whole.GPU == nil || whole.GPU.Queries != len(texts)-rep.Warmup {
			t.Errorf("row %+v: latency %+v", whole, whole.GPU)
		}
	}
	var out bytes.Buffer
	rep.Print(&out)
	if !strings.Contains(out.String(), "resident and") {
		t.Errorf("table:\n%s", out.String())
	}
}
