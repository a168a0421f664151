package schedule

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/query"
)

// batchSizes is a query.BatchEngine that answers at once and records the
// size of every batch it ran.
type batchSizes struct {
	query.Engine
	mu    sync.Mutex
	sizes []int
}

func (b *batchSizes) SearchBatch(ctx context.Context, qs []query.Query) ([]query.Result, error) {
	b.mu.Lock()
	b.sizes = append(b.sizes, len(qs))
	b.mu.Unlock()
	rs := make([]query.Result, len(qs))
	for i, q := range qs {
		var err error
		if rs[i], err = b.Engine.Search(ctx, q); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

func (b *batchSizes) batches() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.sizes)
}

// windowQueries are n distinct queries over randomIndex's terms.
func windowQueries(n int) []query.Query {
	qs := make([]query.Query, n)
	for i := range qs {
		qs[i] = query.Query{Terms: []string{fmt.Sprintf("t%03d", i%40), fmt.Sprintf("t%03d", 3+i%7)}, Mode: query.Or, K: 5}
	}
	return qs
}

// TestWindowFillsBatches: with a window far longer than the test, only a
// full batch (or Close) ends a collection, so queries arriving one by one
// from many callers reach the engine in batches of exactly GPUBatch,
// however the callers interleave, and the other workers of the GPU take
// nothing meanwhile.
func TestWindowFillsBatches(t *testing.T) {
	ix := randomIndex(t, 500)
	for _, workers := range []int{1, 3} {
		gpu := &batchSizes{Engine: query.NewExhaustive(ix)}
		s, err := NewBatcher(ix, gpu, 4, workers, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		qs := windowQueries(12)
		var wg sync.WaitGroup
		for _, q := range qs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := s.Search(context.Background(), q)
				want, _ := gpu.Engine.Search(context.Background(), q)
				if err != nil || !reflect.DeepEqual(got.Hits, want.Hits) {
					t.Errorf("query %v: %v, %v; want %v", q, got.Hits, err, want.Hits)
				}
			}()
		}
		wg.Wait()
		s.Close()
		if got := gpu.batches(); !slices.Equal(got, []int{4, 4, 4}) {
			t.Errorf("%d workers: batches %v, want three of 4", workers, got)
		}
	}
}

// TestWindowEndsOnClose: Close runs a batch still short of GPUBatch at
// once instead of waiting out its window.
func TestWindowEndsOnClose(t *testing.T) {
	ix := randomIndex(t, 500)
	gpu := &batchSizes{Engine: query.NewExhaustive(ix)}
	s, err := NewBatcher(ix, gpu, 8, 2, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for _, q := range windowQueries(2) {
		go func() {
			_, err := s.Search(context.Background(), q)
			errs <- err
		}()
	}
	for s.arrived.Load() < 2 { // both queued: Close would refuse a later one
		runtime.Gosched()
	}
	s.Close()
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := gpu.batches(); !slices.Equal(got, []int{2}) {
		t.Errorf("batches %v, want one of 2", got)
	}
}

// TestSchedulerSearchBatch: SearchBatch answers each query as Search
// does, queues them together (one engine batch without a window, as
// long as no worker is busy), and returns the first error.
func TestSchedulerSearchBatch(t *testing.T) {
	ix := randomIndex(t, 500)
	gpu := &batchSizes{Engine: query.NewExhaustive(ix)}
	s, err := NewBatcher(ix, gpu, 64, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	qs := windowQueries(20)
	rs, err := s.SearchBatch(context.Background(), qs)
	if err != nil || len(rs) != len(qs) {
		t.Fatalf("SearchBatch = %d results, %v", len(rs), err)
	}
	for i, q := range qs {
		want, _ := gpu.Engine.Search(context.Background(), q)
		if !reflect.DeepEqual(rs[i].Hits, want.Hits) || rs[i].Stats.Algorithm != "gpu:"+want.Stats.Algorithm {
			t.Errorf("query %d: %v by %q, want %v by gpu:%s", i, rs[i].Hits, rs[i].Stats.Algorithm, want.Hits, want.Stats.Algorithm)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.SearchBatch(ctx, qs); !errors.Is(err, context.Canceled) {
		t.Errorf("SearchBatch(cancelled) error = %v, want context.Canceled", err)
	}
}

// TestBatcherDeclinesPhrases: a phrase query goes to the batcher's
// engine alone, which declines it as the GPU engine does.
func TestBatcherDeclinesPhrases(t *testing.T) {
	ix := randomIndex(t, 100)
	gpu := &phraseRefuser{batchEngine{Engine: query.NewExhaustive(ix)}}
	s, err := NewBatcher(ix, gpu, 8, 1, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q := query.Query{Terms: []string{"t001", "t002"}, Phrases: [][]string{{"t001", "t002"}}, Mode: query.And, K: 5}
	if _, err := s.Search(context.Background(), q); !errors.Is(err, query.ErrPhraseUnsupported) {
		t.Errorf("phrase query: error %v, want ErrPhraseUnsupported", err)
	}
}
