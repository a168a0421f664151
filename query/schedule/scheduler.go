package schedule

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// Config sets up a Scheduler.
type Config struct {
	Policy     Policy
	Deadline   time.Duration  // per-query deadline the queues aim at (default 500ms)
	CPUWorkers int            // default: DefaultCPUWorkers
	Model      *Model         // default: DefaultModel
	Queues     Options        // thresholds
	CPU        query.Engine   // the CPU engine (required); a *Choice picks one per query
	GPUs       []query.Engine // one engine per GPU; none is fine
	// GPUBatch is the most queries a GPU worker takes at once when its
	// engine is a query.BatchEngine (default 64; 1 turns batching off).
	GPUBatch int
	// CPUAhead is how many jobs a CPU worker takes ahead of the one it
	// runs while more jobs wait than there are CPU workers (0: the
	// default, DefaultCPUAhead; negative: none). A worker with a job in
	// hand takes the scheduler's lock again only if it is free at once
	// (TryLock), and otherwise runs that job: only workers with nothing
	// to run wait for the lock, so a busy lock does not stall them.
	CPUAhead int
	// GPUWorkers is the number of workers per GPU (default 1). With two,
	// one can take and prepare a batch while the other's runs on the
	// device, and their runs overlap there, when the engine allows that
	// (the GPU engine gives each caller a workspace and a stream of its
	// own).
	GPUWorkers int
	// Observe, when set, is called by the worker after each engine call
	// with every query it answered, the processor, and the call's time
	// divided among them (a batch's time shared equally): the costs the
	// queues met, to compare with the model's.
	Observe func(q query.Query, p Proc, cost time.Duration)
	// Window micro-batches a GPU whose engine answers batches: a worker
	// that holds fewer than GPUBatch jobs waits for more until its oldest
	// has waited Window, or the batch is full, while the other workers of
	// its GPU take none (0: no waiting; it runs what it holds at once).
	Window time.Duration
}

// Scheduler is a query.Engine that runs each query on a pool of CPU
// workers and GPU workers, as Queues decides.
type Scheduler struct {
	ix     *index.Index
	cfg    Config
	mu     sync.Mutex
	cond   *sync.Cond
	q      *Queues
	start  time.Time
	nextID atomic.Uint64
	closed bool
	wg     sync.WaitGroup
	// Search leaves its job in the inbox, and workers move the inbox into
	// q whenever they hold mu; Search takes mu only to wake a waiting
	// worker (waiting counts them), so that callers do not queue for the
	// lock the workers pick under.
	in      inbox
	admit   []*Job
	waiting atomic.Int32
	usage   usageCounters
	// Micro-batching (Config.Window). collecting[g] is set (s.mu held)
	// while a worker of GPU g waits for its batch to fill. arrived counts
	// the jobs put; fillAt[g], when positive, is the count at which that
	// worker's batch would be full, and the Search that reaches it wakes
	// the worker through fill[g].
	collecting []bool
	arrived    atomic.Int64
	fillAt     []atomic.Int64
	fill       []chan struct{}
}

// usageCounters is Usage as counters the workers add to without the lock.
type usageCounters struct {
	queries, calls       [2]atomic.Uint64
	busy, lockWait, idle [2]atomic.Int64 // nanoseconds
}

// Usage is where a scheduler's workers spent their time, summed over the
// workers of each processor kind (indexed by Proc).
type Usage struct {
	Queries  [2]uint64        // queries run
	Busy     [2]time.Duration // in engine calls
	Calls    [2]uint64        // engine calls (a batch is one)
	LockWait [2]time.Duration // waiting to take the scheduler's lock
	Idle     [2]time.Duration // waiting for a job (no queue had one for them)
}

// request is a query's job and what its worker needs, allocated together.
type request struct {
	job Job
	p   pending
}

// doneChans recycles the channels that carry answers: a caller whose
// answer came puts its channel back (nothing sends on it again); one that
// gave up leaves it to the worker's send and the collector.
var doneChans = sync.Pool{New: func() any { return make(chan outcome, 1) }}

type pending struct {
	ctx  context.Context
	q    query.Query
	cpu  query.Engine // the engine a CPU worker runs it on
	done chan outcome
}

type outcome struct {
	res  query.Result
	err  error
	proc Proc
}

// ErrNoGPUForPolicy is returned for policy "gpu" without a GPU engine.
var ErrNoGPUForPolicy = errors.New("schedule: policy gpu needs a GPU")

// New starts the workers. Close stops them.
func New(ix *index.Index, cfg Config) (*Scheduler, error) {
	if cfg.CPU == nil {
		return nil, errors.New("schedule: no CPU engine")
	}
	if cfg.Policy == "" {
		cfg.Policy = PolicyHybrid
	}
	if cfg.Policy == PolicyGPU && len(cfg.GPUs) == 0 {
		return nil, ErrNoGPUForPolicy
	}
	if cfg.Deadline <= 0 {
		cfg.Deadline = 500 * time.Millisecond
	}
	if cfg.GPUWorkers <= 0 {
		cfg.GPUWorkers = 1
	}
	if cfg.CPUWorkers <= 0 {
		cfg.CPUWorkers = DefaultCPUWorkers(cfg.Policy, len(cfg.GPUs)*cfg.GPUWorkers)
	}
	if cfg.Model == nil {
		cfg.Model = DefaultModel()
	}
	if cfg.Policy == PolicyGPU {
		cfg.CPUWorkers = 0
	}
	if cfg.GPUBatch <= 0 {
		cfg.GPUBatch = 64
	}
	switch {
	case cfg.CPUAhead == 0:
		cfg.CPUAhead = DefaultCPUAhead
	case cfg.CPUAhead < 0:
		cfg.CPUAhead = 0
	}
	if cfg.Window < 0 {
		cfg.Window = 0
	}
	s := &Scheduler{ix: ix, cfg: cfg, q: NewQueues(cfg.Policy, len(cfg.GPUs) > 0, cfg.Queues), start: time.Now(),
		collecting: make([]bool, len(cfg.GPUs)), fillAt: make([]atomic.Int64, len(cfg.GPUs)), fill: make([]chan struct{}, len(cfg.GPUs))}
	for g := range s.fill {
		s.fill[g] = make(chan struct{}, 1)
	}
	s.cond = sync.NewCond(&s.mu)
	for range cfg.CPUWorkers {
		s.wg.Add(1)
		go s.work(CPU, -1, cfg.CPU)
	}
	if cfg.Policy != PolicyCPU {
		for g, e := range cfg.GPUs {
			for range cfg.GPUWorkers {
				s.wg.Add(1)
				go s.work(GPU, g, e)
			}
		}
	}
	return s, nil
}

// NewBatcher is a scheduler that runs every query on one GPU engine, as
// batches of up to batch queries gathered for up to window (Config.Window)
// by workers workers: engine=gpu served to many callers at once. A query
// with phrases goes to the engine alone, which declines it.
func NewBatcher(ix *index.Index, gpu query.Engine, batch, workers int, window time.Duration) (*Scheduler, error) {
	return New(ix, Config{Policy: PolicyGPU, CPU: gpu, GPUs: []query.Engine{gpu}, GPUBatch: batch, GPUWorkers: workers,
		Window: window})
}

// DefaultCPUWorkers is the number of CPU workers a scheduler starts when
// Config.CPUWorkers is 0: one per core (GOMAXPROCS), less, under the
// policies that use both processors (hybrid, best), one per GPU worker
// and two more, and at least one. A GPU worker's host side (planning a
// batch, launching, reading back) would otherwise wait behind CPU queries
// while the GPU idles, and the two cores run the callers and the Go
// runtime. On the H100 machine (16 cores, 3 GPU workers), 11 CPU workers
// sustained more queries than 14 on the AND-and-OR mix (248,000 and
// 256,000 q/s against 208,000-224,000) and on OR (152,000 against
// 136,000), whose CPU queries are long enough to keep 14 busy, and as
// many on AND (docs/scheduling.md).
func DefaultCPUWorkers(p Policy, gpuWorkers int) int {
	n := runtime.GOMAXPROCS(0)
	if gpuWorkers > 0 && (p == PolicyHybrid || p == PolicyBest) {
		n -= gpuWorkers + 2
	}
	return max(1, n)
}

// DefaultCPUAhead is Config.CPUAhead's default. On the H100 machine's AND
// load, 6 sustained 576,000 and 608,000 q/s where 2 sustained 512,000 and
// 544,000 (docs/scheduling.md): each hold of the lock hands a CPU
// worker more cheap queries, and the workers' waits for it were what
// stopped hybrid.
const DefaultCPUAhead = 6

// CPUWorkers is the number of CPU workers s runs.
func (s *Scheduler) CPUWorkers() int { return s.cfg.CPUWorkers }

// Search queues the query and waits for its answer. Stats.Algorithm is
// prefixed with the processor that ran it ("cpu:", "gpu:").
//
// Its two halves are functions of their own so that their frames are not
// on the stack together: pricing the query inside one large frame made the
// runtime grow and copy the stack of every caller on a fresh goroutine
// (2.2 us a query on the H100 machine); split, the deepest chain of frames
// is about 300 bytes shorter and the growth rarer (docs/scheduling.md).
func (s *Scheduler) Search(ctx context.Context, q query.Query) (query.Result, error) {
	if len(q.Phrases) > 0 {
		return s.searchCPU(ctx, q)
	}
	p, err := s.enqueue(ctx, q)
	if err != nil {
		return query.Result{}, err
	}
	return s.await(ctx, p)
}

// searchCPU answers a query with phrases, which the GPU engines decline
// (query.ErrPhraseUnsupported), with the CPU engine on the caller's
// goroutine, under Guard as a worker would: no queue, so no GPU worker
// can steal it.
func (s *Scheduler) searchCPU(ctx context.Context, q query.Query) (query.Result, error) {
	e := s.cfg.CPU
	if c, ok := e.(*Choice); ok {
		e = c.engineFor(FeaturesOf(s.ix, q))
	}
	var res query.Result
	err := s.ix.Guard(func() (err error) {
		res, err = e.Search(ctx, q)
		return err
	})
	res.Stats.Algorithm = CPU.String() + ":" + res.Stats.Algorithm
	return res, err
}

// enqueue prices q, picks its CPU engine and leaves its job in the inbox.
func (s *Scheduler) enqueue(ctx context.Context, q query.Query) (*pending, error) {
	f := FeaturesOf(s.ix, q)
	cpu, gpu, choice := s.cfg.Model.predictChoice(f)
	r := new(request)
	p := &r.p
	p.ctx, p.q, p.cpu, p.done = ctx, q, s.cfg.CPU, doneChans.Get().(chan outcome)
	if c, ok := s.cfg.CPU.(*Choice); ok {
		// The features are at hand: look the terms up once, and when the
		// Choice prices engines with the queues' model, choose once.
		if c.model == s.cfg.Model && choice >= 0 {
			p.cpu = c.engines[choice]
		} else {
			p.cpu = c.engineFor(f)
		}
	}
	now := time.Since(s.start)
	j := &r.job
	j.ID, j.Arrival, j.Deadline, j.Cost, j.Payload = s.nextID.Add(1), now, now+s.cfg.Deadline, [2]time.Duration{cpu, gpu}, p
	if !s.in.put(j) {
		doneChans.Put(p.done)
		return nil, errors.New("schedule: scheduler closed")
	}
	if s.cfg.Window > 0 {
		s.filled(s.arrived.Add(1))
	}
	// A worker about to wait has counted itself in waiting before it last
	// looked at the inbox: it either saw j or is counted here.
	if s.waiting.Load() > 0 {
		s.mu.Lock()
		s.wake()
		s.mu.Unlock()
	}
	return p, nil
}

// filled wakes a worker whose batch the n-th job put fills.
func (s *Scheduler) filled(n int64) {
	for g := range s.fillAt {
		if t := s.fillAt[g].Load(); t > 0 && n >= t && s.fillAt[g].CompareAndSwap(t, 0) {
			select {
			case s.fill[g] <- struct{}{}:
			default:
			}
		}
	}
}

// SearchBatch implements query.BatchEngine: it queues every query at
// once, so that a GPU worker can take them as one batch, and waits for
// them all. The first error fails the batch.
func (s *Scheduler) SearchBatch(ctx context.Context, qs []query.Query) ([]query.Result, error) {
	rs := make([]query.Result, len(qs))
	ps := make([]*pending, len(qs))
	var first error
	for i, q := range qs {
		if len(q.Phrases) > 0 {
			var err error
			if rs[i], err = s.searchCPU(ctx, q); err != nil && first == nil {
				first = err
			}
			continue
		}
		p, err := s.enqueue(ctx, q)
		if err != nil {
			first = err
			break
		}
		ps[i] = p
	}
	for i, p := range ps {
		if p == nil {
			continue
		}
		var err error
		if rs[i], err = s.await(ctx, p); err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	return rs, nil
}

// await waits for p's answer, or for its caller to give up.
func (s *Scheduler) await(ctx context.Context, p *pending) (query.Result, error) {
	select {
	case o := <-p.done:
		doneChans.Put(p.done)
		o.res.Stats.Algorithm = o.proc.String() + ":" + o.res.Stats.Algorithm
		return o.res, o.err
	case <-ctx.Done():
		// The worker that takes it will see the cancelled context and drop it.
		return query.Result{}, ctx.Err()
	}
}

// wake tells waiting workers that a job was queued (s.mu held). Under
// every policy but best any waiting worker can take it (under hybrid by
// stealing), so one is woken; under best only the job's preferred
// processor may, so all are. Waking every worker for every job made them
// queue for the lock and then for a core: at 44,000 q/s on 16 cores,
// goroutines woken by the scheduler's lock waited 3.1 s in all for a core
// in 0.7 s of load (docs/scheduling.md).
func (s *Scheduler) wake() {
	if s.cfg.Policy == PolicyBest {
		s.cond.Broadcast()
	} else {
		s.cond.Signal()
	}
}

// work runs the jobs Queues gives processor p (GPU number g), on engine
// e, until Close: on a GPU whose engine answers batches, every job Queues
// gives it at that moment up to Config.GPUBatch, as one batch, after
// waiting up to Config.Window for more; on a CPU one job at a time,
// holding up to Config.CPUAhead more while a backlog waits. A worker
// records the jobs it finished in the same hold of the lock that takes
// its next ones.
func (s *Scheduler) work(p Proc, g int, e query.Engine) {
	defer s.wg.Done()
	be, batches := e.(query.BatchEngine)
	var held, jobs []*Job // taken and not yet run; running now
	var bufs runBufs
	var window *time.Timer // micro-batching's, made on first use
	finished := 0          // jobs run since the worker last held the lock
	for {
		if len(held) == 0 || s.mu.TryLock() {
			if len(held) == 0 {
				t := time.Now()
				s.mu.Lock()
				s.usage.lockWait[p].Add(int64(time.Since(t)))
			}
			for ; finished > 0; finished-- {
				s.q.Done()
			}
			if s.cfg.Policy == PolicyBest {
				s.cond.Broadcast() // one query at a time: the next may start
			}
			held = s.take(p, g, batches, held)
			if p == GPU && batches && s.cfg.Window > 0 && len(held) < s.cfg.GPUBatch && !s.closed {
				if window == nil {
					window = time.NewTimer(time.Hour)
				}
				held = s.collect(g, held, window)
			}
			s.mu.Unlock()
			if len(held) == 0 { // closed, and nothing left to run
				return
			}
		}
		n := 1
		if p == GPU {
			n = len(held)
		}
		jobs = append(jobs[:0], held[:n]...)
		held = append(held[:0], held[n:]...)
		start := time.Now()
		outs := s.run(p, e, be, jobs, &bufs)
		took := time.Since(start)
		if s.cfg.Observe != nil {
			for _, j := range jobs {
				s.cfg.Observe(j.Payload.(*pending).q, p, took/time.Duration(len(jobs)))
			}
		}
		// Counted before answered, so that a caller sees its query in Usage.
		u := &s.usage
		u.busy[p].Add(int64(took))
		u.calls[p].Add(1)
		u.queries[p].Add(uint64(len(jobs)))
		for i, j := range jobs {
			outs[i].proc = p
			j.Payload.(*pending).done <- outs[i]
		}
		finished += len(jobs)
	}
}

// take adds to held the jobs processor p (GPU number g) runs next,
// waiting while there are none and none are held (s.mu held). It returns
// held empty only once the scheduler is closed and no job is left for p.
// While another worker of the same GPU collects a batch, a GPU worker
// takes nothing, and waits for the end of that collection.
func (s *Scheduler) take(p Proc, g int, batches bool, held []*Job) []*Job {
	for {
		s.admitInbox()
		now := time.Since(s.start)
		blocked := p == GPU && s.collecting[g]
		for !blocked && len(held) < s.most(p, batches, len(held)) {
			j := s.q.Next(p, now)
			if j == nil {
				break
			}
			held = append(held, j)
		}
		if len(held) > 0 || s.closed {
			return held
		}
		if blocked { // collect broadcasts when it ends
			t := time.Now()
			s.cond.Wait()
			s.usage.idle[p].Add(int64(time.Since(t)))
			continue
		}
		s.waiting.Add(1)
		if s.in.pending() {
			s.waiting.Add(-1)
			continue
		}
		t := time.Now()
		s.cond.Wait()
		s.usage.idle[p].Add(int64(time.Since(t)))
		s.waiting.Add(-1)
	}
}

// collect adds jobs to held, the short batch of a worker of GPU g (s.mu
// held, released while it waits), until held has Config.GPUBatch jobs,
// its oldest has waited Config.Window, or the scheduler closes. The
// other workers of GPU g take nothing meanwhile, so that the jobs
// arriving in the window form one batch. t is the worker's timer.
func (s *Scheduler) collect(g int, held []*Job, t *time.Timer) []*Job {
	s.collecting[g] = true
	oldest := held[0].Arrival
	for _, j := range held {
		oldest = min(oldest, j.Arrival)
	}
	for len(held) < s.cfg.GPUBatch && !s.closed {
		wait := oldest + s.cfg.Window - time.Since(s.start)
		if wait <= 0 {
			break
		}
		s.fillAt[g].Store(s.arrived.Load() + int64(s.cfg.GPUBatch-len(held)))
		// A job put before that count was read counted itself without
		// seeing fillAt, so it wakes nobody: one still in the inbox is
		// taken now, not after the window.
		if !s.in.pending() {
			s.mu.Unlock()
			t.Reset(wait)
			select {
			case <-t.C:
			case <-s.fill[g]:
			}
			t.Stop()
			s.mu.Lock()
		}
		s.fillAt[g].Store(0)
		s.admitInbox()
		now := time.Since(s.start)
		for len(held) < s.cfg.GPUBatch {
			j := s.q.Next(GPU, now)
			if j == nil {
				break
			}
			held = append(held, j)
		}
	}
	s.collecting[g] = false
	s.cond.Broadcast() // the workers of GPU g that waited for the collection
	return held
}

// most is how many jobs a worker of processor p may hold when it holds
// n (s.mu held): a GPU that batches, a batch; a CPU worker, while more
// jobs wait than there are CPU workers (so that no worker idles while
// another holds jobs), 1+CPUAhead; otherwise one.
func (s *Scheduler) most(p Proc, batches bool, n int) int {
	switch {
	case p == GPU && batches:
		return s.cfg.GPUBatch
	case p == CPU && n > 0 && s.cfg.Policy != PolicyBest && s.q.Len() > s.cfg.CPUWorkers:
		return 1 + s.cfg.CPUAhead
	}
	return 1
}

// admitInbox moves the jobs Search left in the inbox into the queues, in
// the order they came (s.mu held).
func (s *Scheduler) admitInbox() {
	s.admit = s.in.takeAll(s.admit)
	for i, j := range s.admit {
		s.q.Add(j)
		s.admit[i] = nil
	}
}

// inbox is where Search leaves jobs for the workers: a stack that Search
// pushes onto with a compare-and-swap and a worker empties in one, so
// that an arrival never waits for a lock. (Against the mutex it replaced,
// no change in hybrid's highest rate was measured: docs/scheduling.md.)
type inbox struct {
	top atomic.Pointer[Job] // the latest job, linked to the ones before by next; closedInbox once closed
}

// closedInbox tops a closed inbox: puts fail, takes find nothing.
var closedInbox = new(Job)

// put pushes j; it reports false once the inbox is closed.
func (b *inbox) put(j *Job) bool {
	for {
		t := b.top.Load()
		if t == closedInbox {
			return false
		}
		j.next = t
		if b.top.CompareAndSwap(t, j) {
			return true
		}
	}
}

// takeAll moves every job into buf[:0], in the order they were put, and
// returns it.
func (b *inbox) takeAll(buf []*Job) []*Job {
	for {
		t := b.top.Load()
		if t == nil || t == closedInbox {
			return buf[:0]
		}
		if b.top.CompareAndSwap(t, nil) {
			return unlink(t, buf[:0])
		}
	}
}

// unlink appends the jobs linked from t to buf, oldest first, clearing
// their links.
func unlink(t *Job, buf []*Job) []*Job {
	n := len(buf)
	for t != nil {
		next := t.next
		t.next = nil
		buf = append(buf, t)
		t = next
	}
	slices.Reverse(buf[n:])
	return buf
}

// pending reports whether a job waits in the inbox.
func (b *inbox) pending() bool {
	t := b.top.Load()
	return t != nil && t != closedInbox
}

// close makes every later put fail and returns the jobs put before, in
// the order they were put.
func (b *inbox) close() []*Job {
	t := b.top.Swap(closedInbox)
	if t == closedInbox {
		return nil
	}
	return unlink(t, nil)
}

// runBufs are a worker's buffers for run, reused from call to call so
// that answering a query allocates nothing of the scheduler's own.
type runBufs struct {
	outs []outcome
	live []int
	qs   []query.Query
}

// run answers jobs on processor p's engine e, as one batch on be when
// there are several; a CPU runs a job on the engine Search chose for it.
// A job whose caller has gone is answered with its context's error. The
// outcomes are in b, valid until the next call.
func (s *Scheduler) run(p Proc, e query.Engine, be query.BatchEngine, jobs []*Job, b *runBufs) []outcome {
	outs := slices.Grow(b.outs[:0], len(jobs))[:len(jobs)]
	clear(outs)
	live, qs := b.live[:0], b.qs[:0]
	defer func() {
		clear(qs) // the queries' terms, until the next call
		b.outs, b.live, b.qs = outs, live, qs
	}()
	for i, j := range jobs {
		pd := j.Payload.(*pending)
		if err := pd.ctx.Err(); err != nil {
			outs[i].err = err
			continue
		}
		live = append(live, i)
		qs = append(qs, pd.q)
	}
	// The engines read the index's mapped files on this goroutine: under
	// Guard, a file that shrank on disk fails the queries instead of
	// killing the process.
	switch {
	case len(qs) == 1:
		i := live[0]
		pd := jobs[i].Payload.(*pending)
		if p == CPU {
			e = pd.cpu
		}
		outs[i].err = s.ix.Guard(func() (err error) {
			outs[i].res, err = e.Search(pd.ctx, pd.q)
			return err
		})
	case len(qs) > 1:
		// The batch outlives any one caller's context; each caller
		// still stops waiting when its own is done.
		var rs []query.Result
		err := s.ix.Guard(func() (err error) {
			rs, err = be.SearchBatch(context.Background(), qs)
			return err
		})
		for n, i := range live {
			if err != nil {
				outs[i].err = err
			} else {
				outs[i].res = rs[n]
			}
		}
	}
	return outs
}

// Usage reports where the workers spent their time, up to each one's
// last engine call.
func (s *Scheduler) Usage() Usage {
	var u Usage
	c := &s.usage
	for p := range u.Queries {
		u.Queries[p] = c.queries[p].Load()
		u.Busy[p] = time.Duration(c.busy[p].Load())
		u.Calls[p] = c.calls[p].Load()
		u.LockWait[p] = time.Duration(c.lockWait[p].Load())
		u.Idle[p] = time.Duration(c.idle[p].Load())
	}
	return u
}

// Close stops the workers once the queued jobs have run.
func (s *Scheduler) Close() error {
	left := s.in.close()
	s.mu.Lock()
	for _, j := range left {
		s.q.Add(j)
	}
	s.closed = true
	s.cond.Broadcast()
	s.mu.Unlock()
	for _, f := range s.fill { // a worker collecting a batch runs it now
		select {
		case f <- struct{}{}:
		default:
		}
	}
	s.wg.Wait()
	// Jobs no worker could take (a queue without its processor) fail.
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, j := range s.q.drain() {
		j.Payload.(*pending).done <- outcome{err: errors.New("schedule: scheduler closed")}
	}
	return nil
}
