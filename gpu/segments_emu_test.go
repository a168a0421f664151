//go:build !cuda

package gpu

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
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

// TestSegmentsEmulated: the GPU engine over a segmented index (a base
// build, then an update that rewrites, removes and adds files, its
// merge policy off) answers every mode exactly as the exhaustive engine
// over a fresh build of the changed crawl: the same docids, the same
// float32 scores, one query at a time and all in one batch. Each
// segment's engine reads its lists deleted documents included;
// query.Segmented asks it for k plus the segment's deleted count and
// drops them. Then the segmented index split into three shards, each
// searched by the GPU engine and merged by query.Sharded, answers the
// same.
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
			e, err := newQEngine(ix, startEmu(emuT, bin))
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
	for i := range 400 {
		switch x := rng.IntN(10); {
		case x == 0:
			if err := os.Remove(filepath.Join(crawl, fmt.Sprintf("d%03d.txt", i))); err != nil {
				t.Fatal(err)
			}
		case x < 3:
			write(i)
		}
	}
	for i := 400; i < 440; i++ {
		write(i)
	}
	if _, err := indexer.Update(context.Background(), filepath.Dir(crawl), base, opts); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(root, "fresh")
	if _, err := indexer.Build(context.Background(), filepath.Dir(crawl), fresh, opts); err != nil {
		t.Fatal(err)
	}
	sx, err := index.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	defer sx.Close()
	fx, err := index.Open(fresh)
	if err != nil {
		t.Fatal(err)
	}
	defer fx.Close()
	if len(sx.Segments()) < 2 || sx.Deleted(0).IsEmpty() {
		t.Fatalf("the update left %d segments, %d deletions in the first: want 2 and some", len(sx.Segments()), sx.Deleted(0).GetCardinality())
	}
	eng, err := query.Open(sx, "gpu-emu", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref := query.NewExhaustive(fx)
	ctx := context.Background()
	qs := randomQueries(rand.New(rand.NewPCG(33, 34)), 60, 40)
	be, ok := eng.(query.BatchEngine)
	if !ok {
		t.Fatalf("the GPU engine over segments (%T) answers no batches", eng)
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

	// The segmented index split into shards: the GPU engine on each
	// shard, which reads its idf and norms under the collection's
	// statistics, merged by query.Sharded, answers as the fresh build.
	coll := filepath.Join(root, "shards")
	if _, err := index.Split(ctx, sx, coll, 3, index.SplitOptions{}); err != nil {
		t.Fatal(err)
	}
	shards, _, err := index.OpenSharded(coll)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shards {
		defer s.Close()
	}
	sheng, err := query.OpenSharded(shards, "gpu-emu", query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sbe, ok := sheng.(query.BatchEngine)
	if !ok {
		t.Fatalf("the GPU engine over shards (%T) answers no batches", sheng)
	}
	if batch, err = sbe.SearchBatch(ctx, qs); err != nil {
		t.Fatal(err)
	}
	for i, q := range qs {
		want, err := ref.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sheng.Search(ctx, q)
		if err != nil {
			t.Fatalf("shards: query %d %v: %v", i, q, err)
		}
		if !slices.Equal(got.Hits, want.Hits) {
			t.Fatalf("shards: query %d %v:\n got %v\nwant %v", i, q, got.Hits, want.Hits)
		}
		if !slices.Equal(batch[i].Hits, want.Hits) {
			t.Fatalf("shards: query %d %v in a batch:\n got %v\nwant %v", i, q, batch[i].Hits, want.Hits)
		}
	}
}
