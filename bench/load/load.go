// Package load is the benchmark behind gpusearch bench load: queries
// arrive at Poisson times and run through the CPU/GPU scheduler
// (package schedule), and each one's delay from its arrival to its
// answer is measured against a deadline, per policy, at a fixed rate or
// sweeping for the highest rate with no missed deadline.
package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpusearch/gpusearch/bench/latency"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// Options are bench load's settings.
type Options struct {
	Policies   []schedule.Policy
	Rate       float64       // mean arrival rate, queries a second (the sweep's start)
	Duration   time.Duration // arrivals stop after this long
	MaxQueries int           // or after this many
	Sweep      bool          // find the highest rate with no missed deadline
	SweepSteps int           // bisection steps after the doubling phase
	SweepTime  time.Duration // stop a policy's sweep before a rate that would end past this long (0: no limit)
	Seed       uint64        // of the arrival process
	Costs      bool          // gather the costs the workers met (Report.Costs)
	Progress   io.Writer
}

// Report is what bench load prints (keys in the order of the map it once
// was). Measure fills the runs and what it knows of the scheduler; the
// caller, the settings it chose.
type Report struct {
	CPUAhead      int                `json:"cpu_ahead"`
	CPUEngine     string             `json:"cpu_engine"`
	CPUWorkers    int                `json:"cpu_workers"`
	DeadlineMS    int64              `json:"deadline_ms"`
	GOGC          string             `json:"gogc"`
	GPUBatch      int                `json:"gpu_batch"`
	GPUWait       string             `json:"gpu_wait"`
	GPUWorkers    int                `json:"gpu_workers"`
	GPUs          int                `json:"gpus"`
	Index         string             `json:"index"`
	MaxRate       map[string]float64 `json:"max_rate_without_misses,omitempty"` // with Sweep
	Mode          string             `json:"mode"`
	Model         *schedule.Model    `json:"model"`
	ModelFitted   bool               `json:"model_fitted"`
	Runs          []Run              `json:"runs"`
	StealOldest   bool               `json:"steal_oldest"`
	SweepCutShort map[string]bool    `json:"sweep_cut_short,omitempty"` // stopped at SweepTime: a lower bound
	UrgentAnyProc bool               `json:"urgent_any_proc"`
	// Costs are each query's features and mean cost per processor as met
	// under load, over every run (bench fit --samples' format), with
	// Options.Costs.
	Costs []schedule.Sample `json:"-"`
}

// Measure runs qs through a fresh scheduler configured as sc for each
// policy, at o.Rate or sweeping from it. The policy gpu is skipped
// without a GPU.
func Measure(ctx context.Context, ix *index.Index, qs []query.Query, sc schedule.Config, o Options) (*Report, error) {
	gpus := schedule.GPUs(sc.GPUs)
	rep := &Report{CPUAhead: sc.CPUAhead, CPUWorkers: sc.CPUWorkers, DeadlineMS: sc.Deadline.Milliseconds(), GPUBatch: sc.GPUBatch,
		GPUWorkers: sc.GPUWorkers, GPUs: len(gpus), Model: sc.Model, StealOldest: sc.Queues.StealOldest, UrgentAnyProc: sc.Queues.UrgentAnyProc}
	if o.Sweep {
		rep.MaxRate = map[string]float64{}
	}
	var seen *costLog
	if o.Costs {
		seen = newCostLog(ix, qs)
		sc.Observe = seen.observe
	}
	for _, p := range o.Policies {
		sc.Policy = p
		if p == schedule.PolicyGPU && len(gpus) == 0 {
			progress(o.Progress, "bench load: skipping policy gpu: no GPU\n")
			continue
		}
		measure := func(rate float64) (Run, error) {
			before := gpus.Usage()
			r, err := runLoad(ctx, ix, sc, qs, rate, o)
			after := gpus.Usage()
			r.GPURuns = after.Runs - before.Runs
			r.GPUHeldS, r.GPUDeviceS = (after.Held - before.Held).Seconds(), (after.Busy - before.Busy).Seconds()
			if err == nil {
				progress(o.Progress, "policy %-6s rate %8.1f q/s: mean %8.0fus p99 %8.0fus missed %d served %.0f q/s\n", p, rate, r.MeanDelayUS, r.P99DelayUS, r.Missed, r.ServedQPS)
				if r.ArrivalS < o.Duration.Seconds()*0.99 {
					progress(o.Progress, "bench load: --max-queries %d stopped arrivals after %.2fs of %v; raise it to hold the rate for --duration\n", o.MaxQueries, r.ArrivalS, o.Duration)
				}
			}
			return r, err
		}
		if !o.Sweep {
			r, err := measure(o.Rate)
			if err != nil {
				return nil, err
			}
			rep.Runs = append(rep.Runs, r)
			continue
		}
		lo, swept, cut, err := sweepRates(measure, o.Rate, o.SweepSteps, o.SweepTime)
		rep.Runs = append(rep.Runs, swept...)
		if err != nil {
			return nil, err
		}
		rep.MaxRate[string(p)] = lo
		if cut {
			if rep.SweepCutShort == nil {
				rep.SweepCutShort = map[string]bool{}
			}
			rep.SweepCutShort[string(p)] = true
		}
	}
	if seen != nil {
		rep.Costs = seen.samples()
	}
	return rep, nil
}

// progress writes a progress line to w unless it is nil.
func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

// Run is one (policy, rate) measurement.
type Run struct {
	Policy     string  `json:"policy"`
	CPUWorkers int     `json:"cpu_workers"`
	Rate       float64 `json:"rate"`
	Queries    int     `json:"queries"`
	// ArrivalS is how long queries arrived for: --duration, or less when
	// --max-queries stopped the arrivals first (then the rate was held
	// for less time than asked, and a backlog had less time to grow).
	ArrivalS    float64 `json:"arrival_s"`
	MeanDelayUS float64 `json:"mean_delay_us"`
	P99DelayUS  float64 `json:"p99_delay_us"`
	Missed      int     `json:"missed"`
	// Of the missed, those answered late by each processor and those
	// given up unanswered.
	MissedOnCPU int `json:"missed_on_cpu"`
	MissedOnGPU int `json:"missed_on_gpu"`
	GivenUp     int `json:"given_up"`
	// ServedQPS is the answers per second that came while queries
	// arrived (from the run's start to its last arrival): under overload, what
	// the processors kept up with. A run passes a rate somewhat above it
	// when its backlog has not reached the deadline by the run's end.
	ServedQPS float64 `json:"served_qps"`
	RanOnCPU  uint64  `json:"ran_on_cpu"`
	RanOnGPU  uint64  `json:"ran_on_gpu"`
	// Busy: seconds the CPU workers together, and the GPU workers, spent
	// in engine calls; calls: how many (a GPU batch is one call).
	BusyCPUS float64 `json:"busy_cpu_s"`
	BusyGPUS float64 `json:"busy_gpu_s"`
	CallsCPU uint64  `json:"calls_cpu"`
	CallsGPU uint64  `json:"calls_gpu"`
	// Seconds the workers of each kind together waited for the
	// scheduler's lock, and for a job.
	LockWaitCPUS float64 `json:"lock_wait_cpu_s"`
	LockWaitGPUS float64 `json:"lock_wait_gpu_s"`
	IdleCPUS     float64 `json:"idle_cpu_s"`
	IdleGPUS     float64 `json:"idle_gpu_s"`
	// The GPUs' runs (launch sequences) and, summed over them, the time
	// the host held a device and the device's time in them
	// (gpu.DeviceUsage).
	GPURuns    int64   `json:"gpu_runs"`
	GPUHeldS   float64 `json:"gpu_held_s"`
	GPUDeviceS float64 `json:"gpu_device_s"`
	Seconds    float64 `json:"seconds"` // from the first arrival to the last answer
}

// sweepRates doubles the rate from start until a run misses a deadline,
// then bisects steps times, and returns the highest rate without a miss
// (0 if even start missed) and every run. With budget > 0 it stops before
// a rate that would end past budget, judged by the longest run so far,
// and reports cut.
func sweepRates(measure func(rate float64) (Run, error), start float64, steps int, budget time.Duration) (best float64, runs []Run, cut bool, err error) {
	began := time.Now()
	var longest time.Duration
	try := func(rate float64) (bool, error) {
		if budget > 0 && time.Since(began)+longest > budget {
			cut = true
			return false, nil
		}
		t := time.Now()
		r, err := measure(rate)
		longest = max(longest, time.Since(t))
		if err != nil {
			return false, err
		}
		runs = append(runs, r)
		return r.Missed == 0, nil
	}
	lo, hi := 0.0, start
	for range 12 {
		ok, err := try(hi)
		if err != nil || cut {
			return lo, runs, cut, err
		}
		if !ok {
			break
		}
		lo, hi = hi, hi*2
	}
	for range steps {
		if lo == 0 {
			break
		}
		mid := (lo + hi) / 2
		ok, err := try(mid)
		if err != nil || cut {
			return lo, runs, cut, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, runs, false, nil
}

// runLoad sends queries at Poisson arrival times through a fresh
// scheduler and measures each one's delay from its arrival to its answer.
// Queries still waiting two deadlines after the last arrival are given up
// and count as missed, so that an overloaded run ends soon after its
// arrivals do instead of draining its backlog.
//
// The load's own bookkeeping shares nothing between queries, as requests
// to the server share nothing: each query has a context of its own (a
// context shared by all of them put every waiting caller on one channel,
// whose lock took 8% of the GPU alone's CPU time at 320,000 q/s on the
// H100 machine) and writes its delay and answerer into a slot of its own.
func runLoad(ctx context.Context, ix *index.Index, sc schedule.Config, qs []query.Query, rate float64, o Options) (Run, error) {
	s, err := schedule.New(ix, sc)
	if err != nil {
		return Run{}, err
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(o.Seed, uint64(rate)))
	var (
		slots answerSlots
		wg    sync.WaitGroup
		fail  firstError
	)
	start := time.Now()
	giveUp := start.Add(o.Duration + 2*sc.Deadline)
	// Each query has a context of its own, cancelled once it is answered
	// or when the run gives up on it (cancelAll, which finds the queries
	// still in flight through their slots, so that the answered ones'
	// contexts are garbage at once). A deadline per query would cost a
	// runtime timer each (about 2 us a query, a core at 544,000 q/s on the
	// H100 machine). Interrupting the command stops the arrivals and gives
	// up at once.
	qctx := context.WithoutCancel(ctx)
	n := 0
	cancelAll := func() { slots.cancel(n) }
	var at time.Duration
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for ; n < o.MaxQueries && at < o.Duration; n++ {
		at += time.Duration(r.ExpFloat64() / rate * float64(time.Second))
		if d := time.Until(start.Add(at)); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-ctx.Done():
				cancelAll()
				wg.Wait()
				return Run{}, ctx.Err()
			}
		}
		arrival := start.Add(at)
		q := qs[n%len(qs)]
		slot := slots.slot(n)
		slot.arrived = at
		c, cancel := context.WithCancel(qctx)
		a := &asked{ctx: c, cancel: cancel, q: q, arrival: arrival, slot: slot}
		slot.asking.Store(a)
		wg.Add(1)
		go ask(s, a, &wg, &fail)
	}
	// Queries still waiting two deadlines after the last arrival are given up.
	stop := time.AfterFunc(time.Until(giveUp), cancelAll)
	wg.Wait()
	stop.Stop()
	if fail.err != nil {
		return Run{}, fail.err
	}
	if n == 0 {
		return Run{}, errors.New("bench load: no query arrived; raise --duration or --rate")
	}
	delays := make([]time.Duration, n)
	run := Run{Policy: string(sc.Policy), CPUWorkers: s.CPUWorkers(), Rate: rate, Queries: n, ArrivalS: at.Seconds()}
	served := 0
	for i := range n {
		a := slots.slot(i)
		delays[i] = a.delay
		if a.by != givenUp && a.arrived+a.delay <= at {
			served++
		}
		if a.delay > sc.Deadline {
			run.Missed++
			switch a.by {
			case byCPU:
				run.MissedOnCPU++
			case byGPU:
				run.MissedOnGPU++
			default:
				run.GivenUp++
			}
		}
	}
	if at > 0 {
		run.ServedQPS = float64(served) / at.Seconds()
	}
	sum := latency.Summarize(delays)
	run.MeanDelayUS, run.P99DelayUS = sum.MeanUS, sum.P99US
	u := s.Usage()
	run.RanOnCPU, run.RanOnGPU = u.Queries[schedule.CPU], u.Queries[schedule.GPU]
	run.BusyCPUS, run.BusyGPUS = u.Busy[schedule.CPU].Seconds(), u.Busy[schedule.GPU].Seconds()
	run.CallsCPU, run.CallsGPU = u.Calls[schedule.CPU], u.Calls[schedule.GPU]
	run.LockWaitCPUS, run.LockWaitGPUS = u.LockWait[schedule.CPU].Seconds(), u.LockWait[schedule.GPU].Seconds()
	run.IdleCPUS, run.IdleGPUS = u.Idle[schedule.CPU].Seconds(), u.Idle[schedule.GPU].Seconds()
	run.Seconds = time.Since(start).Seconds()
	return run, nil
}

// asked is a query in flight.
type asked struct {
	ctx     context.Context
	cancel  context.CancelFunc
	q       query.Query
	arrival time.Time
	slot    *answer
}

// ask is a query's goroutine: it runs a.q through s and writes its answer
// into a.slot, and an error into fail unless the run gave up on the query
// (given up, its delay is past the deadline: a miss). It takes one
// argument for the query's five so that its frame is small: a query's
// fresh goroutine grows its stack (1.4-2.2 us a query) only when the
// frames under the scheduler's pricing are deep enough.
func ask(s *schedule.Scheduler, a *asked, wg *sync.WaitGroup, fail *firstError) {
	defer wg.Done()
	res, err := s.Search(a.ctx, a.q)
	a.slot.asking.Store(nil)
	a.cancel()
	a.slot.delay, a.slot.by = time.Since(a.arrival), answererOf(res, err)
	if err != nil && !errors.Is(err, context.Canceled) {
		fail.set(err)
	}
}

// firstError keeps the first error set.
type firstError struct {
	mu  sync.Mutex
	err error
}

func (f *firstError) set(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

// answer is when a query arrived, how long it took from then and who
// answered it, and while it is in flight the query (for cancel).
type answer struct {
	arrived time.Duration // since the run's start
	delay   time.Duration
	by      answerer
	asking  atomic.Pointer[asked]
}

// answerer is the processor that answered a query, or none.
type answerer uint8

const (
	givenUp answerer = iota // no answer: given up, or failed
	byCPU
	byGPU
)

// answererOf reads the processor from the "cpu:" or "gpu:" prefix the
// scheduler puts on a result's algorithm.
func answererOf(res query.Result, err error) answerer {
	switch {
	case err != nil:
		return givenUp
	case strings.HasPrefix(res.Stats.Algorithm, schedule.GPU.String()+":"):
		return byGPU
	}
	return byCPU
}

// answerSlots holds one answer per query, in chunks that never move, so
// that each query's goroutine writes its own slot without a lock while
// the arrivals add chunks.
type answerSlots struct{ chunks [][]answer }

const answerChunk = 1 << 16

// slot returns query i's slot, adding a chunk when i is the first past
// the last one (ask for slots in order, from one goroutine).
func (d *answerSlots) slot(i int) *answer {
	if i/answerChunk == len(d.chunks) {
		d.chunks = append(d.chunks, make([]answer, answerChunk))
	}
	return &d.chunks[i/answerChunk][i%answerChunk]
}

// cancel cancels the queries of the first n slots still in flight (call
// it once the slots are asked for no more, from one goroutine).
func (d *answerSlots) cancel(n int) {
	for i := range n {
		if a := d.slot(i).asking.Load(); a != nil {
			a.cancel()
		}
	}
}

// costLog gathers the costs the scheduler's workers met, per query.
type costLog struct {
	mu      sync.Mutex
	order   []string
	byQuery map[string]*observed
}

type observed struct {
	features schedule.Features
	sum      [2]time.Duration
	n        [2]int
}

func newCostLog(ix *index.Index, qs []query.Query) *costLog {
	l := &costLog{byQuery: map[string]*observed{}}
	for _, q := range qs {
		key := costKey(q)
		if l.byQuery[key] == nil {
			l.order = append(l.order, key)
			l.byQuery[key] = &observed{features: schedule.FeaturesOf(ix, q)}
		}
	}
	return l
}

func costKey(q query.Query) string { return fmt.Sprint(q.Mode, q.K, q.Terms) }

func (l *costLog) observe(q query.Query, p schedule.Proc, cost time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if o := l.byQuery[costKey(q)]; o != nil {
		o.sum[p] += cost
		o.n[p]++
	}
}

// samples are one sample per query that ran, its mean cost on each
// processor (0 where it never ran).
func (l *costLog) samples() []schedule.Sample {
	var samples []schedule.Sample
	for _, key := range l.order {
		o := l.byQuery[key]
		s := schedule.Sample{Features: o.features}
		for p, dst := range []*time.Duration{&s.CPU, &s.GPU} {
			if o.n[p] > 0 {
				*dst = o.sum[p] / time.Duration(o.n[p])
			}
		}
		if s.CPU > 0 || s.GPU > 0 {
			samples = append(samples, s)
		}
	}
	return samples
}
