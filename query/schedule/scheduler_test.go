package schedule

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	_ "github.com/gpusearch/gpusearch/codecplugins/varint"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// randomIndex writes an index of n documents over a Zipfian vocabulary.
func randomIndex(t testing.TB, n int) *index.Index {
	t.Helper()
	r := rand.New(rand.NewPCG(9, 9))
	z := rand.NewZipf(r, 1.1, 1, 499)
	lists := map[string]map[uint32]uint32{}
	lens := make([]uint32, n)
	urls := make([]string, n)
	for d := range n {
		urls[d] = fmt.Sprintf("doc/%05d", d)
		for range 5 + r.IntN(40) {
			term := fmt.Sprintf("t%03d", z.Uint64())
			if lists[term] == nil {
				lists[term] = map[uint32]uint32{}
			}
			lists[term][uint32(d)]++
			lens[d]++
		}
	}
	var postings []testindex.Postings
	for _, term := range slices.Sorted(maps.Keys(lists)) {
		p := testindex.Postings{Term: term, DocIDs: slices.Sorted(maps.Keys(lists[term]))}
		for _, d := range p.DocIDs {
			p.Freqs = append(p.Freqs, lists[term][d])
		}
		postings = append(postings, p)
	}
	return testindex.Write(t, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Order: "url"}, lens, urls, postings...)
}

// batchEngine stands in for a GPU engine: it answers batches through
// query.Engine one query at a time, slowly enough that queries queue up,
// and records the largest batch.
type batchEngine struct {
	query.Engine
	mu      sync.Mutex
	largest int
}

func (b *batchEngine) Search(ctx context.Context, q query.Query) (query.Result, error) {
	rs, err := b.SearchBatch(ctx, []query.Query{q})
	if err != nil {
		return query.Result{}, err
	}
	return rs[0], nil
}

func (b *batchEngine) SearchBatch(ctx context.Context, qs []query.Query) ([]query.Result, error) {
	b.mu.Lock()
	b.largest = max(b.largest, len(qs))
	b.mu.Unlock()
	time.Sleep(2 * time.Millisecond)
	rs := make([]query.Result, len(qs))
	for i, q := range qs {
		var err error
		if rs[i], err = b.Engine.Search(ctx, q); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

func TestSchedulerMatchesCPU(t *testing.T) {
	ix := randomIndex(t, 3000)
	cpu, err := query.New(ix, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		p          Policy
		gpuWorkers int
		ahead      int
		window     time.Duration
	}{
		{PolicyCPU, 1, 0, 0}, {PolicyGPU, 1, 0, 0}, {PolicyBest, 1, 0, 0}, {PolicyHybrid, 1, 0, 0}, {PolicyGPU, 2, 0, 0}, {PolicyHybrid, 2, 0, 0},
		{PolicyCPU, 1, -1, 0}, {PolicyHybrid, 2, -1, 0}, {PolicyCPU, 1, 8, 0}, {PolicyHybrid, 2, 8, 0},
		{PolicyGPU, 3, 0, 200 * time.Microsecond}, {PolicyHybrid, 2, 0, 200 * time.Microsecond}, {PolicyBest, 1, 0, 200 * time.Microsecond},
	} {
		p := tt.p
		t.Run(fmt.Sprintf("%s/gpu-workers=%d/ahead=%d/window=%s", p, tt.gpuWorkers, tt.ahead, tt.window), func(t *testing.T) {
			// A second engine stands in for the GPU so both worker kinds run.
			fakeGPU := &batchEngine{Engine: query.NewExhaustive(ix)}
			s, err := New(ix, Config{Policy: p, CPU: cpu, GPUs: []query.Engine{fakeGPU}, CPUWorkers: 3, GPUBatch: 16, GPUWorkers: tt.gpuWorkers,
				CPUAhead: tt.ahead, Window: tt.window})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			r := rand.New(rand.NewPCG(5, 5))
			var wg sync.WaitGroup
			errs := make(chan error, 200)
			for i := range 200 {
				q := query.Query{Mode: []query.Mode{query.And, query.Or, query.AndOr}[i%3], K: 10}
				for range 1 + r.IntN(4) {
					q.Terms = append(q.Terms, fmt.Sprintf("t%03d", r.IntN(120)))
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					got, err := s.Search(context.Background(), q)
					if err != nil {
						errs <- err
						return
					}
					want, _ := cpu.Search(context.Background(), q)
					if !reflect.DeepEqual(got.Hits, want.Hits) {
						errs <- fmt.Errorf("query %v: scheduler %v, cpu %v", q, got.Hits, want.Hits)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			u := s.Usage()
			c, g := u.Queries[CPU], u.Queries[GPU]
			if c+g != 200 {
				t.Errorf("ran %d queries, want 200", c+g)
			}
			if p == PolicyCPU && g != 0 || p == PolicyGPU && c != 0 {
				t.Errorf("policy %s ran %d on CPU and %d on GPU", p, c, g)
			}
			busy, calls := u.Busy, u.Calls
			if calls[CPU] > c || calls[GPU] > g || calls[CPU]+calls[GPU] == 0 || (g > 0 && busy[GPU] < time.Duration(calls[GPU])*2*time.Millisecond) {
				t.Errorf("policy %s: usage %v in %v calls for %d CPU and %d GPU queries", p, busy, calls, c, g)
			}
			// 200 queries at once on a GPU worker busy 2 ms per call:
			// it must take them in batches, of at most GPUBatch.
			switch {
			case p == PolicyGPU && fakeGPU.largest < 2:
				t.Errorf("policy gpu: largest batch %d, want batches", fakeGPU.largest)
			case fakeGPU.largest > 16:
				t.Errorf("policy %s: a batch of %d, over GPUBatch 16", p, fakeGPU.largest)
			case p == PolicyBest && fakeGPU.largest > 1:
				t.Errorf("policy best ran a batch of %d: one query at a time", fakeGPU.largest)
			}
		})
	}
}

func TestSchedulerWithoutGPU(t *testing.T) {
	ix := randomIndex(t, 200)
	cpu, _ := query.New(ix, "cpu")
	if _, err := New(ix, Config{Policy: PolicyGPU, CPU: cpu}); err != ErrNoGPUForPolicy {
		t.Fatalf("policy gpu without a GPU: err = %v, want ErrNoGPUForPolicy", err)
	}
	s, err := New(ix, Config{Policy: PolicyHybrid, CPU: cpu})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Search(context.Background(), query.Query{Terms: []string{"t001"}, Mode: query.Or, K: 5}); err != nil {
		t.Fatal(err)
	}
	if u := s.Usage(); u.Queries[CPU] != 1 || u.Queries[GPU] != 0 {
		t.Errorf("without a GPU: ran %d on CPU, %d on GPU; want 1, 0", u.Queries[CPU], u.Queries[GPU])
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Search(ctx, query.Query{Terms: []string{"t001"}, Mode: query.Or, K: 5}); err == nil {
		t.Error("cancelled context: want an error")
	}
}

func TestDefaultCPUWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	tests := []struct {
		policy     Policy
		gpuWorkers int
		want       int
	}{
		{PolicyCPU, 0, 16},
		{PolicyCPU, 3, 16},
		{PolicyHybrid, 0, 16},
		{PolicyHybrid, 1, 13},
		{PolicyHybrid, 3, 11},
		{PolicyBest, 6, 8},
		{PolicyGPU, 1, 16},
		{PolicyHybrid, 20, 1},
	}
	for _, tt := range tests {
		if got := DefaultCPUWorkers(tt.policy, tt.gpuWorkers); got != tt.want {
			t.Errorf("DefaultCPUWorkers(%s, %d) = %d, want %d", tt.policy, tt.gpuWorkers, got, tt.want)
		}
	}
	ix := randomIndex(t, 50)
	cpu, _ := query.New(ix, "cpu")
	s, err := New(ix, Config{Policy: PolicyHybrid, CPU: cpu, GPUs: []query.Engine{cpu}, GPUWorkers: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.CPUWorkers() != 11 {
		t.Errorf("hybrid with one GPU and 3 GPU workers on 16 cores runs %d CPU workers, want 11", s.CPUWorkers())
	}
}

// sleepEngine answers after a fixed time.
type sleepEngine time.Duration

func (e sleepEngine) Search(context.Context, query.Query) (query.Result, error) {
	time.Sleep(time.Duration(e))
	return query.Result{}, nil
}

// TestCPUAhead: what a worker takes in one hold of the lock, by policy,
// processor, CPUAhead and backlog (3 CPU workers): a CPU worker one job,
// and 1+CPUAhead while more jobs wait than there are CPU workers (never
// under best, one query at a time); a batching GPU worker up to GPUBatch.
func TestCPUAhead(t *testing.T) {
	for _, tt := range []struct {
		policy  Policy
		p       Proc
		ahead   int
		waiting int // jobs queued
		want    int
	}{
		{PolicyCPU, CPU, 0, 10, 1 + DefaultCPUAhead},
		{PolicyCPU, CPU, 5, 10, 6},
		{PolicyCPU, CPU, 5, 7, 4}, // 7 waiting: the worker's 4th leaves 3, not more than the workers
		{PolicyCPU, CPU, 5, 3, 1}, // no backlog
		{PolicyCPU, CPU, -1, 10, 1},
		{PolicyHybrid, CPU, 2, 10, 3},
		{PolicyBest, CPU, 2, 10, 1},
		{PolicyGPU, GPU, 2, 10, 4}, // GPUBatch
		{PolicyCPU, CPU, 2, 0, 0},  // closed, nothing left
	} {
		t.Run(fmt.Sprintf("%s/%s/ahead=%d/waiting=%d", tt.policy, tt.p, tt.ahead, tt.waiting), func(t *testing.T) {
			cfg := Config{Policy: tt.policy, CPUWorkers: 3, CPUAhead: tt.ahead, GPUBatch: 4}
			switch {
			case cfg.CPUAhead == 0:
				cfg.CPUAhead = DefaultCPUAhead
			case cfg.CPUAhead < 0:
				cfg.CPUAhead = 0
			}
			s := &Scheduler{cfg: cfg, q: NewQueues(tt.policy, true, Options{}), start: time.Now(), closed: tt.waiting == 0,
				collecting: make([]bool, 1)}
			s.cond = sync.NewCond(&s.mu)
			cost := [2]time.Duration{time.Millisecond, 2 * time.Millisecond} // CPU-preferred
			if tt.p == GPU {
				cost[CPU], cost[GPU] = cost[GPU], cost[CPU]
			}
			for i := range tt.waiting {
				s.q.Add(&Job{ID: uint64(i), Deadline: time.Hour, Cost: cost})
			}
			s.mu.Lock()
			held := s.take(tt.p, 0, tt.p == GPU, nil)
			s.mu.Unlock()
			if len(held) != tt.want || s.q.Len() != tt.waiting-tt.want {
				t.Errorf("took %d, left %d; want %d, %d", len(held), s.q.Len(), tt.want, tt.waiting-tt.want)
			}
		})
	}
}

// TestUsageAccounts: one CPU worker, queries 1 ms long arriving 10 ms
// apart, so the worker is mostly idle; Usage must say so, and its parts
// must not add up to more than the time that passed.
func TestUsageAccounts(t *testing.T) {
	ix := randomIndex(t, 100)
	s, err := New(ix, Config{Policy: PolicyCPU, CPU: sleepEngine(time.Millisecond), CPUWorkers: 1})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	const n = 10
	for range n {
		if _, err := s.Search(context.Background(), query.Query{Terms: []string{"t001"}, Mode: query.Or, K: 1}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := s.Search(context.Background(), query.Query{Terms: []string{"t001"}, Mode: query.Or, K: 1}); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	s.Close()
	u := s.Usage()
	if u.Calls[CPU] != n+1 || u.Busy[CPU] < (n+1)*time.Millisecond {
		t.Errorf("busy %v in %d calls, want at least %v in %d", u.Busy[CPU], u.Calls[CPU], (n+1)*time.Millisecond, n+1)
	}
	if u.Idle[CPU] < n*9*time.Millisecond {
		t.Errorf("idle %v, want at least %v (%d gaps of 10 ms)", u.Idle[CPU], n*9*time.Millisecond, n)
	}
	if sum := u.Busy[CPU] + u.Idle[CPU] + u.LockWait[CPU]; sum > elapsed {
		t.Errorf("busy+idle+lock wait %v, more than the %v that passed", sum, elapsed)
	}
	if u.Busy[GPU]+u.Idle[GPU]+u.LockWait[GPU] != 0 || u.Calls[GPU] != 0 {
		t.Errorf("no GPU worker, usage %+v", u)
	}
}

// TestSchedulerChoosesCPUEngine runs CPU queries through a Choice, alone
// and behind the scheduler: each query must run on the engine its features
// pick (exhaustive under 2,000 postings, Block-Max WAND above) and return
// what engine cpu returns.
func TestSchedulerChoosesCPUEngine(t *testing.T) {
	ix := randomIndex(t, 3000)
	ref, _ := query.New(ix, "cpu")
	m := choiceModel()
	ch, err := NewChoice(ix, m)
	if err != nil {
		t.Fatal(err)
	}
	// The scheduler's own model: the Choice's, or one listing the same
	// engines in the other order (the Choice must still pick by its own).
	rev := *m
	rev.CPUAlgorithms = slices.Clone(m.CPUAlgorithms)
	slices.Reverse(rev.CPUAlgorithms)
	s, err := New(ix, Config{Policy: PolicyCPU, CPU: ch, Model: m, CPUWorkers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sRev, err := New(ix, Config{Policy: PolicyCPU, CPU: ch, Model: &rev, CPUWorkers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer sRev.Close()
	r := rand.New(rand.NewPCG(8, 8))
	ran := map[string]int{}
	for i := range 300 {
		s := []*Scheduler{s, sRev}[i/2%2]
		q := query.Query{Mode: []query.Mode{query.And, query.Or}[i%2], K: 10}
		for range 1 + r.IntN(3) {
			q.Terms = append(q.Terms, fmt.Sprintf("t%03d", r.IntN(200)))
		}
		want, _ := ref.Search(context.Background(), q)
		alone, err := ch.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Hits, want.Hits) || !reflect.DeepEqual(alone.Hits, want.Hits) {
			t.Fatalf("query %v: scheduler %v, choice %v, cpu %v", q, got.Hits, alone.Hits, want.Hits)
		}
		wantAlgo := map[query.Mode]string{query.And: "and-blockmax", query.Or: "bmw"}[q.Mode]
		if FeaturesOf(ix, q).Total < 2000 {
			wantAlgo = "exhaustive"
		}
		if got.Stats.Algorithm != "cpu:"+wantAlgo || alone.Stats.Algorithm != wantAlgo {
			t.Fatalf("query %v (%v postings): ran on %q and %q, want %q", q, FeaturesOf(ix, q).Total, got.Stats.Algorithm, alone.Stats.Algorithm, wantAlgo)
		}
		ran[wantAlgo]++
	}
	if ran["exhaustive"] == 0 || ran["bmw"] == 0 {
		t.Errorf("engines run: %v; want queries on both sides of the choice", ran)
	}
	if _, err := NewChoice(ix, DefaultModel()); err == nil {
		t.Error("NewChoice on a model without engines: want an error")
	}
	bad := choiceModel()
	bad.CPUAlgorithms[1].Engine = "nosuch"
	if _, err := NewChoice(ix, bad); err == nil {
		t.Error("NewChoice with an unknown engine: want an error")
	}
}

// TestInbox: jobs put from many goroutines at once, while a taker empties
// the inbox and another closes it, are each taken or returned by close
// exactly once, each producer's in the order it put them; puts after the
// close fail.
func TestInbox(t *testing.T) {
	const producers, per = 8, 5000
	var b inbox
	var wg sync.WaitGroup
	putOK := make([][]bool, producers)
	for p := range producers {
		putOK[p] = make([]bool, per)
		wg.Go(func() {
			for i := range per {
				putOK[p][i] = b.put(&Job{ID: uint64(p*per + i)})
			}
		})
	}
	var got []*Job
	stop := make(chan struct{})
	taken := make(chan struct{})
	go func() {
		defer close(taken)
		var buf []*Job
		for {
			select {
			case <-stop:
				return
			default:
			}
			buf = b.takeAll(buf)
			got = append(got, buf...)
		}
	}()
	time.Sleep(5 * time.Millisecond)
	close(stop)
	<-taken
	got = append(got, b.close()...)
	wg.Wait()
	if b.put(&Job{}) || b.pending() || len(b.takeAll(nil)) != 0 {
		t.Fatal("a closed inbox took a job or had one")
	}
	last := make([]int, producers)
	for p := range last {
		last[p] = -1
	}
	seen := map[uint64]bool{}
	for _, j := range got {
		if seen[j.ID] || j.next != nil {
			t.Fatalf("job %d taken twice or still linked", j.ID)
		}
		seen[j.ID] = true
		p, i := int(j.ID)/per, int(j.ID)%per
		if i <= last[p] {
			t.Fatalf("producer %d: job %d after %d", p, i, last[p])
		}
		last[p] = i
	}
	for p := range producers {
		for i, ok := range putOK[p] {
			if ok != seen[uint64(p*per+i)] {
				t.Fatalf("job %d: put reported %v, taken %v", p*per+i, ok, seen[uint64(p*per+i)])
			}
		}
	}
}
