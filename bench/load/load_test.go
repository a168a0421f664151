package load

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	// Every codec family registers itself; indexes name their codecs.
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// TestSweepRates: the sweep doubles from the start rate until a miss,
// then bisects; a budget stops it early with the best rate so far.
func TestSweepRates(t *testing.T) {
	for _, tt := range []struct {
		name          string
		capacity      float64 // rates above it miss deadlines
		start         float64
		steps         int
		best          float64
		rates         []float64
		fails         bool
		budget, sleep time.Duration
	}{
		{"bisects", 300, 100, 2, 300, []float64{100, 200, 400, 300, 350}, false, 0, 0},
		{"start misses", 50, 100, 3, 0, []float64{100}, false, 0, 0},
		{"no bisection", 300, 100, 0, 200, []float64{100, 200, 400}, false, 0, 0},
		{"measure fails", 300, 100, 2, 0, nil, true, 0, 0},
		// 20 ms a run, 50 ms of budget: the third run would end past it
		// (on a loaded machine, maybe the second: the rates are checked
		// below, not here).
		{"cut", 1e9, 100, 4, 0, nil, false, 50 * time.Millisecond, 20 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var rates []float64
			measure := func(rate float64) (Run, error) {
				if tt.fails {
					return Run{}, errors.New("engine gone")
				}
				time.Sleep(tt.sleep)
				rates = append(rates, rate)
				r := Run{Rate: rate}
				if rate > tt.capacity {
					r.Missed = 1
				}
				return r, nil
			}
			best, runs, cut, err := sweepRates(measure, tt.start, tt.steps, tt.budget)
			if tt.budget > 0 {
				if !cut || err != nil || len(rates) == 0 || len(rates) > 2 || best != rates[len(rates)-1] || len(runs) != len(rates) {
					t.Errorf("best %v, rates %v, cut %v, err %v; want cut after one or two doublings, the last the best", best, rates, cut, err)
				}
				return
			}
			if (err != nil) != tt.fails || best != tt.best || !slices.Equal(rates, tt.rates) || len(runs) != len(tt.rates) || cut != (tt.budget > 0) {
				t.Errorf("best %v, rates %v (%d runs), cut %v, err %v; want %v, %v, cut %v", best, rates, len(runs), cut, err, tt.best, tt.rates, tt.budget > 0)
			}
		})
	}
}

// TestAnswerSlots: every query's slot keeps its own answer across chunk
// boundaries, and cancel cancels exactly the queries still in flight
// among the first n (here every third is).
func TestAnswerSlots(t *testing.T) {
	for _, n := range []int{1, answerChunk - 1, answerChunk, answerChunk + 1, 2*answerChunk + 7} {
		var d answerSlots
		cancelled := make([]bool, n+1)
		for i := range n + 1 {
			s := d.slot(i)
			s.delay, s.by = time.Duration(i), answerer(i%3)
			if i%3 == 0 {
				s.asking.Store(&asked{cancel: func() { cancelled[i] = true }})
			}
		}
		if len(d.chunks) != (n+answerChunk)/answerChunk {
			t.Fatalf("n=%d: %d chunks", n, len(d.chunks))
		}
		d.cancel(n)
		for i := range n + 1 {
			if s := d.slot(i); s.delay != time.Duration(i) || s.by != answerer(i%3) {
				t.Fatalf("n=%d: answer %d is %v by %v", n, i, s.delay, s.by)
			}
			if want := i%3 == 0 && i < n; cancelled[i] != want {
				t.Fatalf("n=%d: query %d cancelled %v, want %v", n, i, cancelled[i], want)
			}
		}
	}
}

// stuckEngine answers no query before its context ends.
type stuckEngine struct{}

func (stuckEngine) Search(ctx context.Context, _ query.Query) (query.Result, error) {
	<-ctx.Done()
	return query.Result{}, ctx.Err()
}

// TestRunLoadGivesUp: queries still waiting two deadlines after the last
// arrival are given up and counted as missed, without an error, and the
// run ends then instead of waiting for them.
func TestRunLoadGivesUp(t *testing.T) {
	ix := testindex.Crawl(t, indexer.Options{Workers: 2})
	qs := []query.Query{{Terms: []string{"system"}, Mode: query.And, K: 10}}
	sc := schedule.Config{Policy: schedule.PolicyCPU, CPU: stuckEngine{}, CPUWorkers: 2, Deadline: 20 * time.Millisecond}
	f := Options{Duration: 100 * time.Millisecond, MaxQueries: 1000, Seed: 1}
	start := time.Now()
	r, err := runLoad(context.Background(), ix, sc, qs, 200, f)
	if err != nil {
		t.Fatal(err)
	}
	if r.Queries == 0 || r.Missed != r.Queries || r.GivenUp != r.Queries || r.ServedQPS != 0 {
		t.Errorf("run %+v: want every query missed, given up, none served", r)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the run took %v: the given-up queries were waited for", took)
	}
}

// slowEngine answers after a fixed time.
type slowEngine time.Duration

func (e slowEngine) Search(context.Context, query.Query) (query.Result, error) {
	time.Sleep(time.Duration(e))
	return query.Result{}, nil
}

// TestRunLoadMissesByProcessor: queries answered past their deadline
// count as missed on the processor that answered them, not as given up.
// The engine overruns the deadline by 50 ms while the give-up point lies
// two deadlines past the last arrival, leaving 150 ms of slack for a
// loaded machine.
func TestRunLoadMissesByProcessor(t *testing.T) {
	ix := testindex.Crawl(t, indexer.Options{Workers: 2})
	qs := []query.Query{{Terms: []string{"system"}, Mode: query.And, K: 10}}
	sc := schedule.Config{Policy: schedule.PolicyCPU, CPU: slowEngine(250 * time.Millisecond), CPUWorkers: 16, Deadline: 200 * time.Millisecond}
	r, err := runLoad(context.Background(), ix, sc, qs, 100, Options{Duration: 100 * time.Millisecond, MaxQueries: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Missed == 0 || r.MissedOnCPU != r.Missed || r.MissedOnGPU != 0 || r.GivenUp != 0 {
		t.Errorf("run %+v: want every miss answered late by the CPU", r)
	}
}

// TestRunLoadServed: one worker taking at least 10 ms a query serves at
// most 100 q/s of 1,000 arriving, however many it answers late.
func TestRunLoadServed(t *testing.T) {
	ix := testindex.Crawl(t, indexer.Options{Workers: 2})
	qs := []query.Query{{Terms: []string{"system"}, Mode: query.And, K: 10}}
	sc := schedule.Config{Policy: schedule.PolicyCPU, CPU: slowEngine(10 * time.Millisecond), CPUWorkers: 1, Deadline: time.Second}
	const duration = 300 * time.Millisecond
	r, err := runLoad(context.Background(), ix, sc, qs, 1000, Options{Duration: duration, MaxQueries: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The window ends at the last arrival, at least duration in.
	if most := 100 * (1 + float64(10*time.Millisecond)/float64(duration)); r.ServedQPS <= 0 || r.ServedQPS > most {
		t.Errorf("served %.1f q/s of %d queries, want some and at most %.1f", r.ServedQPS, r.Queries, most)
	}
}

func TestAnswererOf(t *testing.T) {
	for _, tt := range []struct {
		algorithm string
		err       error
		want      answerer
	}{
		{"cpu:bmw", nil, byCPU},
		{"gpu:and-wave", nil, byGPU},
		{"gpu:and-wave", context.DeadlineExceeded, givenUp},
		{"", errors.New("closed"), givenUp},
	} {
		res := query.Result{Stats: query.Stats{Algorithm: tt.algorithm}}
		if got := answererOf(res, tt.err); got != tt.want {
			t.Errorf("answererOf(%q, %v) = %v, want %v", tt.algorithm, tt.err, got, tt.want)
		}
	}
}

// TestRunLoadArrivalWindow: arrivals last --duration unless --max-queries
// stops them first, and arrival_s says which.
func TestRunLoadArrivalWindow(t *testing.T) {
	ix := testindex.Crawl(t, indexer.Options{Workers: 2})
	qs := []query.Query{{Terms: []string{"system"}, Mode: query.And, K: 10}}
	sc := schedule.Config{Policy: schedule.PolicyCPU, CPU: slowEngine(0), CPUWorkers: 2, Deadline: time.Second}
	const duration = 200 * time.Millisecond
	for _, tt := range []struct {
		maxQueries int
		full       bool
	}{{100000, true}, {20, false}} {
		r, err := runLoad(context.Background(), ix, sc, qs, 1000, Options{Duration: duration, MaxQueries: tt.maxQueries, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if full := r.ArrivalS >= duration.Seconds(); full != tt.full || r.ArrivalS <= 0 {
			t.Errorf("max %d: %d queries arrived over %.3fs, want the full %v: %v", tt.maxQueries, r.Queries, r.ArrivalS, duration, tt.full)
		}
	}
}
