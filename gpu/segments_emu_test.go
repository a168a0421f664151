//go:build !cuda

package gpu

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// registerEmu registers, once per test binary, the driver "gpu-emu": the
// query engine on the emulator, which query.Open runs per segment of a
// segmented index as it runs the real "gpu".
var registerEmu sync.Once

// emuSearcher is the emulated query engine as a query.Engine.
type emuSearcher struct{ e *qengine }

func (s emuSearcher) Search(ctx context.Context, q query.Query) (query.Result, error) {
	rs, err := s.SearchBatch(ctx, []query.Query{q})
	if err != nil {
		return query.Result{}, err
	}
	return rs[0], nil
}

func (s emuSearcher) SearchBatch(ctx context.Context, qs []query.Query) ([]query.Result, error) {
	rs, _, err := s.e.search(ctx, qs, false)
	return rs, err
}

func (s emuSearcher) Close() error { return s.e.release() }

// emuUploads counts the columns the "gpu-emu" driver uploaded.
var emuUploads struct {
	sync.Mutex
	n int
}

// TestSegmentsEmulated: the GPU engine over a segmented index (a base
// build, then an update that rewrites, removes and adds files, its
// merge policy off) answers every mode exactly as the exhaustive engine
// over a fresh build of the changed crawl: the same docids, the same
// float32 scores, one query at a time and all in one batch. Each
// segment's engine reads its lists deleted documents included;
// query.Segmented asks it for k plus the segment's deleted count and
// drops them. A second update, opened while the first generation's
// engine still serves, uploads only its new segment: the unchanged ones'
// columns are shared (new deletions and statistics notwithstanding), and
// outlive the first generation's engine, and the last engine to close
// frees them. Then the segmented index split into three shards, each
// searched by the GPU engine and merged by query.Sharded, answers as the
// fresh build.
func TestSegmentsEmulated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the kernels under a C++ emulation")
	}
	bin := buildEmu(t)
	var mu sync.Mutex
	var emuT *testing.T // the test the driver's emulators belong to
	registerEmu.Do(func() {
		query.Register("gpu-emu", query.Driver{Needs: query.Needs{GPU: true}, Open: func(ix *index.Index, _ query.Options) (query.Engine, error) {
			mu.Lock()
			defer mu.Unlock()
			cols, err := acquireColumns(residentKey(ix, Options{}), func() (*columns, error) {
				emuUploads.Lock()
				emuUploads.n++
				emuUploads.Unlock()
				return uploadColumns(ix, startEmu(emuT, bin))
			})
			if err != nil {
				return nil, err
			}
			e, err := newQEngineOn(ix, cols)
			if err != nil {
				return nil, err
			}
			emuT.Cleanup(func() { e.release() })
			return emuSearcher{e}, nil
		}})
	})
	mu.Lock()
	emuT = t
	mu.Unlock()

	rng := rand.New(rand.NewPCG(31, 32))
	root := t.TempDir()
	crawl := filepath.Join(root, "crawl", "s.test")
	write := func(i int) {
		var b strings.Builder
		for range 5 + rng.IntN(300) {
			b.WriteString(termName(1 + int(40*rng.Float64()*rng.Float64())))
			b.WriteByte(' ')
		}
		if err := os.WriteFile(filepath.Join(crawl, fmt.Sprintf("d%03d.txt", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(crawl, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		write(i)
	}
	opts := indexer.Options{Workers: 1, DocIDCodec: "gpu-bp256", FreqCodec: "gpu-bp256", Store: index.StoreNone,
		Merge: indexer.MergePolicy{Off: true}}
	base := filepath.Join(root, "segmented")
	if _, err := indexer.Build(context.Background(), filepath.Dir(crawl), base, opts); err != nil {
		t.Fatal(err)
	}
	// change rewrites or removes about a third of files [0, n), adds
	// files [n, n+40), brings base up to date and returns the index and a
	// fresh build of the crawl.
	change := func(n int, fresh string) (*index.Index, *index.Index) {
		for i := range n {
			path := filepath.Join(crawl, fmt.Sprintf("d%03d.txt", i))
			if _, err := os.Stat(path); err != nil {
				continue
			}
			switch x := rng.IntN(10); {
			case x == 0:
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			case x < 3:
				write(i)
			}
		}
		for i := n; i < n+40; i++ {
			write(i)
		}
		if _, err := indexer.Update(context.Background(), filepath.Dir(crawl), base, opts); err != nil {
			t.Fatal(err)
		}
		if _, err := indexer.Build(context.Background(), filepath.Dir(crawl), filepath.Join(root, fresh), opts); err != nil {
			t.Fatal(err)
		}
		sx, err := index.Open(base)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sx.Close() })
		fx, err := index.Open(filepath.Join(root, fresh))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fx.Close() })
		return sx, fx
	}
	open := func(sx *index.Index) (query.Engine, int) {
		emuUploads.Lock()
		before := emuUploads.n
		emuUploads.Unlock()
		eng, err := query.Open(sx, "gpu-emu", query.Options{})
		if err != nil {
			t.Fatal(err)
		}
		emuUploads.Lock()
		defer emuUploads.Unlock()
		return eng, emuUploads.n - before
	}

	sx1, fx1 := change(400, "fresh1")
	if len(sx1.Segments()) != 2 || sx1.Deleted(0).IsEmpty() {
		t.Fatalf("the update left %d segments, %d deletions in the first: want 2 and some", len(sx1.Segments()), sx1.Deleted(0).GetCardinality())
	}
	eng1, uploads := open(sx1)
	if uploads != 2 {
		t.Errorf("the first generation uploaded %d segments' columns, want 2", uploads)
	}
	checkEmulated(t, eng1, fx1, 33)

	sx2, fx2 := change(440, "fresh2")
	if len(sx2.Segments()) != 3 || sx2.Deleted(0).GetCardinality() <= sx1.Deleted(0).GetCardinality() {
		t.Fatalf("the second update left %d segments, %d deletions in the first: want 3 and more than before", len(sx2.Segments()), sx2.Deleted(0).GetCardinality())
	}
	eng2, uploads := open(sx2)
	if uploads != 1 {
		t.Errorf("the second generation uploaded %d segments' columns, want 1: the new one", uploads)
	}
	checkEmulated(t, eng2, fx2, 35)
	if err := eng1.(io.Closer).Close(); err != nil {
		t.Fatal(err)
	}
	checkEmulated(t, eng2, fx2, 37)
	if err := eng2.(io.Closer).Close(); err != nil {
		t.Fatal(err)
	}

	// The segmented index split into shards: the GPU engine on each
	// shard, which reads its idf and norms under the collection's
	// statistics, merged by query.Sharded, answers as the fresh build.
	sheng, err := query.OpenSharded(testindex.Shards(t, sx2, 3), "gpu-emu", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkEmulated(t, sheng, fx2, 39)
	if err := sheng.(io.Closer).Close(); err != nil {
		t.Fatal(err)
	}
	residents.mu.Lock()
	defer residents.mu.Unlock()
	if len(residents.m) != 0 {
		t.Errorf("%d columns stay resident after the last engine closed", len(residents.m))
	}
}

// checkEmulated compares eng (over segments or shards) with the
// exhaustive engine over fresh on random queries, one at a time and all
// in one batch.
func checkEmulated(t *testing.T, eng query.Engine, fresh *index.Index, seed uint64) {
	t.Helper()
	ref := query.NewExhaustive(fresh)
	ctx := context.Background()
	qs := randomQueries(rand.New(rand.NewPCG(seed, seed+1)), 60, 40)
	be, ok := eng.(query.BatchEngine)
	if !ok {
		t.Fatalf("the GPU engine over segments or shards (%T) answers no batches", eng)
	}
	batch, err := be.SearchBatch(ctx, qs)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		want, err := ref.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := eng.Search(ctx, q)
		if err != nil {
			t.Fatalf("query %d %v: %v", i, q, err)
		}
		if !slices.Equal(got.Hits, want.Hits) {
			t.Fatalf("query %d %v:\n got %v\nwant %v", i, q, got.Hits, want.Hits)
		}
		if !slices.Equal(batch[i].Hits, want.Hits) {
			t.Fatalf("query %d %v in a batch:\n got %v\nwant %v", i, q, batch[i].Hits, want.Hits)
		}
	}
}
