package schedule

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/query"
)

// BenchmarkQueues times one arrival and one pick (Add, Next, Done) under
// hybrid with backlogs of 10^3 to 2x10^5 jobs (hybrid's highest rates run
// with 10^5 and more): the work done under the scheduler's lock per query.
func BenchmarkQueues(b *testing.B) {
	for _, backlog := range []int{1000, 10000, 200000} {
		b.Run(fmt.Sprint(backlog), func(b *testing.B) { benchQueues(b, backlog) })
	}
}

func benchQueues(b *testing.B, backlog int) {
	r := rand.New(rand.NewPCG(1, 2))
	q := NewQueues(PolicyHybrid, true, Options{})
	var now time.Duration
	job := func(id uint64) *Job {
		c, g := time.Duration(1+r.IntN(2000))*time.Microsecond, time.Duration(5+r.IntN(30))*time.Microsecond
		return &Job{ID: id, Arrival: now, Deadline: now + 500*time.Millisecond, Cost: [2]time.Duration{c, g}}
	}
	for i := range backlog {
		q.Add(job(uint64(i)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		now += time.Microsecond
		q.Add(job(uint64(i)))
		if q.Next(Proc(i%2), now) != nil {
			q.Done()
		}
	}
}

// instantEngine answers every query at once with no hits: a stand-in that
// leaves only the scheduler's own work to time.
type instantEngine struct{}

func (instantEngine) Search(context.Context, query.Query) (query.Result, error) {
	return query.Result{}, nil
}

func (instantEngine) SearchBatch(_ context.Context, qs []query.Query) ([]query.Result, error) {
	return make([]query.Result, len(qs)), nil
}

// BenchmarkSchedulerOverhead times a query through Scheduler.Search with
// engines that do no work, from many callers at once (8 per core): the
// cost of queueing, picking and answering, contention on the scheduler's
// lock included.
func BenchmarkSchedulerOverhead(b *testing.B) {
	ix := randomIndex(b, 500)
	s, err := New(ix, Config{Policy: PolicyHybrid, CPU: instantEngine{}, GPUs: []query.Engine{instantEngine{}}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	q := query.Query{Terms: []string{"t001", "t002"}, Mode: query.Or, K: 10}
	callers := 8 * runtime.GOMAXPROCS(0)
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	per := b.N / callers
	for c := range callers {
		n := per
		if c == 0 {
			n += b.N - per*callers
		}
		wg.Go(func() {
			for range n {
				if _, err := s.Search(context.Background(), q); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
