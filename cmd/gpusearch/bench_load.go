package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchLoadCmd) }

// loadRun is one (policy, rate) measurement.
type loadRun struct {
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

// loadFlags are bench load's options.
type loadFlags struct {
	dir, queries, mode, policies string
	cpuEngine                    string
	rate                         float64
	deadline, duration           time.Duration
	maxQueries, k, sweepSteps    int
	cpuWorkers, gpuBatch         int
	cpuAhead                     int
	gpuWorkers                   int
	gpuWait                      string
	sweep, urgentAnyProc         bool
	sweepTime                    time.Duration
	stealOldest                  bool
	model, costs                 string
	seed                         uint64
}

func newBenchLoadCmd() *cobra.Command {
	var f loadFlags
	cmd := &cobra.Command{
		Use:   "load --index DIR --queries FILE --rate R --policy cpu|gpu|best|hybrid",
		Short: "Poisson arrivals through the CPU/GPU scheduler: delay, p99 and missed deadlines per policy; --sweep finds the highest sustainable rate",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			// The --gpu-* flags, where given, override the config's gpu section.
			gc := cfg.GPU
			if f.gpuWait != "" {
				gc.Wait = f.gpuWait
			}
			if f.gpuWorkers > 0 {
				gc.Workers = f.gpuWorkers
			}
			if f.gpuBatch > 0 {
				gc.Batch = f.gpuBatch
			}
			if err := gc.Validate(); err != nil {
				return usageError{err}
			}
			f.gpuWait, f.gpuWorkers, f.gpuBatch = gc.Wait, gc.Workers, gc.Batch
			gogc := applyGC(cfg.Server.GCPercent) // as serve runs
			modes, err := parseModes(f.mode)
			if err != nil {
				return err
			}
			var policies []schedule.Policy
			for _, p := range splitList(f.policies) {
				pol, err := schedule.ParsePolicy(p)
				if err != nil {
					return usageError{err}
				}
				policies = append(policies, pol)
			}
			lines, err := readQueries(f.queries)
			if err != nil {
				return err
			}
			ix, err := index.Open(f.dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			qs := inEveryMode(analysis.New(), lines, modes, f.k)
			var model *schedule.Model
			fitted := true
			if f.model != "" {
				model, err = schedule.ReadModel(f.model)
			} else {
				model, fitted, err = schedule.LoadModel(f.dir)
			}
			if err != nil {
				return err
			}
			if f.cpuEngine != "" {
				model = model.WithCPUEngine(f.cpuEngine)
			}
			f.cpuEngine = model.CPUEngines()
			cpu, err := schedule.NewCPU(ix, model)
			if err != nil {
				return err
			}
			gpus, gerr := openGPUs(ix, gc)
			defer closeGPUs(gpus)
			if len(gpus) == 0 {
				fmt.Fprintf(os.Stderr, "bench load: no GPU (%v)\n", gerr)
			}
			if !fitted {
				fmt.Fprintln(os.Stderr, "bench load: no cost-model.json beside the index (run bench fit); using the default model")
			}
			var runs []loadRun
			best, cuts := map[string]float64{}, map[string]bool{}
			var seen *costLog
			if f.costs != "" {
				seen = newCostLog(ix, qs)
			}
			for _, p := range policies {
				sc := schedule.Config{Policy: p, Deadline: f.deadline, Model: model, CPU: cpu, GPUs: asEngines(gpus),
					CPUWorkers: f.cpuWorkers, CPUAhead: f.cpuAhead, GPUBatch: f.gpuBatch, GPUWorkers: f.gpuWorkers, Queues: schedule.Options{UrgentAnyProc: f.urgentAnyProc, StealOldest: f.stealOldest}}
				if seen != nil {
					sc.Observe = seen.observe
				}
				if p == schedule.PolicyGPU && len(gpus) == 0 {
					fmt.Fprintln(os.Stderr, "bench load: skipping policy gpu: no GPU")
					continue
				}
				measure := func(rate float64) (loadRun, error) {
					before := deviceUsage(gpus)
					r, err := runLoad(cmd.Context(), ix, sc, qs, rate, f)
					after := deviceUsage(gpus)
					r.GPURuns = after.Runs - before.Runs
					r.GPUHeldS, r.GPUDeviceS = (after.Held - before.Held).Seconds(), (after.Busy - before.Busy).Seconds()
					if err == nil {
						fmt.Fprintf(os.Stderr, "policy %-6s rate %8.1f q/s: mean %8.0fus p99 %8.0fus missed %d served %.0f q/s\n", p, rate, r.MeanDelayUS, r.P99DelayUS, r.Missed, r.ServedQPS)
						if r.ArrivalS < f.duration.Seconds()*0.99 {
							fmt.Fprintf(os.Stderr, "bench load: --max-queries %d stopped arrivals after %.2fs of %v; raise it to hold the rate for --duration\n", f.maxQueries, r.ArrivalS, f.duration)
						}
					}
					return r, err
				}
				if !f.sweep {
					r, err := measure(f.rate)
					if err != nil {
						return err
					}
					runs = append(runs, r)
					continue
				}
				lo, swept, cut, err := sweepRates(measure, f.rate, f.sweepSteps, f.sweepTime)
				runs = append(runs, swept...)
				if err != nil {
					return err
				}
				best[string(p)] = lo
				if cut {
					cuts[string(p)] = true
				}
			}
			out := map[string]any{"index": f.dir, "mode": f.mode, "deadline_ms": f.deadline.Milliseconds(), "gpus": len(gpus), "model_fitted": fitted,
				"cpu_engine": f.cpuEngine, "cpu_workers": f.cpuWorkers, "cpu_ahead": f.cpuAhead, "gpu_batch": f.gpuBatch, "gpu_workers": f.gpuWorkers, "gpu_wait": f.gpuWait, "gogc": gogc, "urgent_any_proc": f.urgentAnyProc, "steal_oldest": f.stealOldest, "model": model, "runs": runs}
			if f.sweep {
				out["max_rate_without_misses"] = best
				if len(cuts) > 0 {
					out["sweep_cut_short"] = cuts // stopped at --sweep-time: a lower bound
				}
			}
			if seen != nil {
				if err := seen.write(f.costs); err != nil {
					return err
				}
			}
			return writeJSON(os.Stdout, out)
		},
	}
	addConfigFlag(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "index", "index", "index directory")
	fl.StringVar(&f.queries, "queries", "", "queries file")
	fl.StringVar(&f.mode, "mode", "or", "query mode, or a comma-separated list: each query then arrives in every mode, interleaved")
	fl.IntVar(&f.k, "k", 10, "results per query")
	fl.Float64Var(&f.rate, "rate", 50, "mean arrival rate, queries per second (the sweep's start)")
	fl.DurationVar(&f.deadline, "deadline", 500*time.Millisecond, "per-query deadline")
	fl.StringVar(&f.policies, "policy", "hybrid", "comma-separated policies: cpu, gpu, best, hybrid")
	fl.DurationVar(&f.duration, "duration", 10*time.Second, "arrivals stop after this long")
	fl.IntVar(&f.maxQueries, "max-queries", 200000, "arrivals stop after this many (a safety cap: --duration should end a run, so that a rate is held for that long)")
	fl.BoolVar(&f.sweep, "sweep", false, "find the highest rate with no missed deadline")
	fl.IntVar(&f.sweepSteps, "sweep-steps", 4, "bisection steps after the doubling phase")
	fl.DurationVar(&f.sweepTime, "sweep-time", 0, "stop a policy's sweep before a rate that would end past this long (judged by its longest rate so far) and report the best rate so far, marked in sweep_cut_short (0: no limit)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the arrival process")
	fl.IntVar(&f.cpuWorkers, "cpu-workers", 0, "CPU workers (0: one per core, less one per GPU worker and two more under hybrid and best)")
	fl.IntVar(&f.cpuAhead, "cpu-ahead", 0, fmt.Sprintf("while a backlog waits, each CPU worker holds this many queries beyond the one it runs (0: %d; negative: none)", schedule.DefaultCPUAhead))
	fl.StringVar(&f.cpuEngine, "cpu-engine", "", "the CPU workers' engine (query.New): cpu, maxscore, bmw, ... (default: the cost model's, which may pick one per query, else cpu)")
	fl.IntVar(&f.gpuBatch, "gpu-batch", 0, "most queries a GPU worker takes at once (0: the config's gpu.batch)")
	fl.IntVar(&f.gpuWorkers, "gpu-workers", 0, "workers per GPU: with 2, one plans its batch while the other's runs on the device, and their runs overlap there (0: the config's gpu.workers)")
	fl.StringVar(&f.gpuWait, "gpu-wait", "", "how the host waits for the GPU: auto, spin, yield or block (default: the config's gpu.wait)")
	fl.BoolVar(&f.urgentAnyProc, "urgent-any-proc", false, "hybrid: an urgent query runs on whichever processor is free first")
	fl.BoolVar(&f.stealOldest, "steal-oldest", false, "hybrid: the first version's queue order (the GPU's cheapest job first, thieves take the oldest), for comparison")
	fl.StringVar(&f.model, "model", "", "cost model file (default: cost-model.json beside the index)")
	fl.StringVar(&f.costs, "costs", "", "write each query's features and mean cost per processor as met under load, over every run of the command, to this JSON file (bench fit --samples' format); a GPU batch's time is split equally among its queries, so GPU figures compare only in sum")
	fl.Bool("json", true, "print JSON (always on)")
	cmd.MarkFlagRequired("queries")
	return cmd
}

// sweepRates doubles the rate from start until a run misses a deadline,
// then bisects steps times, and returns the highest rate without a miss
// (0 if even start missed) and every run. With budget > 0 it stops before
// a rate that would end past budget, judged by the longest run so far,
// and reports cut.
func sweepRates(measure func(rate float64) (loadRun, error), start float64, steps int, budget time.Duration) (best float64, runs []loadRun, cut bool, err error) {
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

// deviceUsage sums the GPU engines' usage.
func deviceUsage(gpus []*gpu.Engine) gpu.DeviceUsage {
	var sum gpu.DeviceUsage
	for _, g := range gpus {
		u := g.Usage()
		sum.Runs += u.Runs
		sum.Held += u.Held
		sum.Busy += u.Busy
	}
	return sum
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
func runLoad(ctx context.Context, ix *index.Index, sc schedule.Config, qs []query.Query, rate float64, f loadFlags) (loadRun, error) {
	s, err := schedule.New(ix, sc)
	if err != nil {
		return loadRun{}, err
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(f.seed, uint64(rate)))
	var (
		slots answerSlots
		wg    sync.WaitGroup
		fail  firstError
	)
	start := time.Now()
	giveUp := start.Add(f.duration + 2*sc.Deadline)
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
	for ; n < f.maxQueries && at < f.duration; n++ {
		at += time.Duration(r.ExpFloat64() / rate * float64(time.Second))
		if d := time.Until(start.Add(at)); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-ctx.Done():
				cancelAll()
				wg.Wait()
				return loadRun{}, ctx.Err()
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
		return loadRun{}, fail.err
	}
	if n == 0 {
		return loadRun{}, errors.New("bench load: no query arrived; raise --duration or --rate")
	}
	delays := make([]time.Duration, n)
	run := loadRun{Policy: string(sc.Policy), CPUWorkers: s.CPUWorkers(), Rate: rate, Queries: n, ArrivalS: at.Seconds()}
	var sum time.Duration
	served := 0
	for i := range n {
		a := slots.slot(i)
		delays[i] = a.delay
		sum += a.delay
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
	slices.Sort(delays)
	if at > 0 {
		run.ServedQPS = float64(served) / at.Seconds()
	}
	run.MeanDelayUS = float64(sum.Microseconds()) / float64(len(delays))
	run.P99DelayUS = float64(delays[(len(delays)*99)/100].Microseconds())
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

// write saves one sample per query that ran, its mean cost on each
// processor (0 where it never ran).
func (l *costLog) write(path string) error {
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
	return writeJSONFile(path, samples)
}
