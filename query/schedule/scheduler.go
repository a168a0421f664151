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
}

// Scheduler is a query.Engine that runs each query on a pool of CPU
// workers and GPU workers, as Queues decides.
//
// One goroutine, the dispatcher, owns the queues: it moves the jobs
// Search leaves in the inbox into them and hands each worker the jobs it
// runs next, into a box of its own. No worker and no caller waits for a
// lock the others pick under: on the H100 machine the single lock that
// the workers took to pick for themselves was held all the time at
// hybrid's highest AND rates, and its waiters lost as much CPU time as
// their queries took (docs/scheduling.md).
type Scheduler struct {
	ix      *index.Index
	cfg     Config
	start   time.Time
	nextID  atomic.Uint64
	in      inbox
	workers []*worker
	wg      sync.WaitGroup
	usage   usageCounters

	// The dispatcher's, which it alone touches.
	q        *Queues
	admit    []*Job
	inClosed bool

	finished atomic.Int64 // jobs workers ran that the dispatcher has not yet counted Done
	asleep   atomic.Bool  // the dispatcher waits for its bell
	bell     chan struct{}
	closing  atomic.Bool
	stopped  chan struct{} // closed when the dispatcher returns
}

// worker is one goroutine that runs queries on a processor's engine.
type worker struct {
	p     Proc
	e     query.Engine
	batch bool         // e answers batches: the worker takes its box at once
	out   atomic.Int32 // jobs handed to it and not yet run to the end
	bell  chan struct{}

	mu     sync.Mutex
	box    []*Job // handed to it, not yet started
	asleep bool   // waiting for its bell
	closed bool   // no job will come
}

// usageCounters is Usage as counters the workers add to without a lock.
type usageCounters struct {
	queries, calls [2]atomic.Uint64
	busy, idle     [2]atomic.Int64 // nanoseconds
	dispatch       atomic.Int64
}

// Usage is where a scheduler's workers spent their time, summed over the
// workers of each processor kind (indexed by Proc), and the dispatcher's.
type Usage struct {
	Queries [2]uint64        // queries run
	Busy    [2]time.Duration // in engine calls
	Calls   [2]uint64        // engine calls (a batch is one)
	Idle    [2]time.Duration // waiting for a job (none was handed to them)
	// Dispatch is the dispatcher's time in the passes that queued or
	// handed out jobs (not its waits for them).
	Dispatch time.Duration
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
	s := &Scheduler{ix: ix, cfg: cfg, q: NewQueues(cfg.Policy, len(cfg.GPUs) > 0, cfg.Queues), start: time.Now(),
		bell: make(chan struct{}, 1), stopped: make(chan struct{})}
	for range cfg.CPUWorkers {
		s.workers = append(s.workers, newWorker(CPU, cfg.CPU))
	}
	if cfg.Policy != PolicyCPU {
		for _, g := range cfg.GPUs {
			for range cfg.GPUWorkers {
				s.workers = append(s.workers, newWorker(GPU, g))
			}
		}
	}
	for _, w := range s.workers {
		s.wg.Add(1)
		go s.work(w)
	}
	go s.dispatch()
	return s, nil
}

// DefaultCPUWorkers is the number of CPU workers a scheduler starts when
// Config.CPUWorkers is 0: one per core (GOMAXPROCS) but the dispatcher's,
// less, under the policies that use both processors (hybrid, best), one
// per GPU worker and one more, and at least one. A GPU worker's host side
// (planning a batch, launching, reading back) would otherwise wait behind
// CPU queries while the GPU idles, and the last core runs the callers and
// the Go runtime. On the H100 machine (16 cores, 3 GPU workers), 11 CPU
// workers sustained more queries than 14 on the AND-and-OR mix (248,000
// and 256,000 q/s against 208,000-224,000) and on OR (152,000 against
// 136,000), whose CPU queries are long enough to keep 14 busy, and as
// many on AND (docs/scheduling.md, runs BQ-BR).
func DefaultCPUWorkers(p Policy, gpuWorkers int) int {
	n := runtime.GOMAXPROCS(0) - 1
	if gpuWorkers > 0 && (p == PolicyHybrid || p == PolicyBest) {
		n -= gpuWorkers + 1
	}
	return max(1, n)
}

// DefaultCPUAhead is Config.CPUAhead's default. On the H100 machine's AND
// load, 6 sustained 576,000 and 608,000 q/s where 2 sustained 512,000 and
// 544,000 (docs/scheduling.md, run BP): each hold of the lock hands a CPU
// worker more cheap queries, and the workers' waits for it were what
// stopped hybrid.
const DefaultCPUAhead = 6

// CPUWorkers is the number of CPU workers s runs.
func (s *Scheduler) CPUWorkers() int { return s.cfg.CPUWorkers }

// Search queues the query and waits for its answer. Stats.Algorithm is
// prefixed with the processor that ran it ("cpu:", "gpu:").
func (s *Scheduler) Search(ctx context.Context, q query.Query) (query.Result, error) {
	f := FeaturesOf(s.ix, q)
	cpu, gpu, choice := s.cfg.Model.predictChoice(f)
	r := &request{p: pending{ctx: ctx, q: q, cpu: s.cfg.CPU, done: doneChans.Get().(chan outcome)}}
	p := &r.p
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
	r.job = Job{ID: s.nextID.Add(1), Arrival: now, Deadline: now + s.cfg.Deadline, Cost: [2]time.Duration{cpu, gpu}, Payload: p}
	j := &r.job
	if !s.in.put(j) {
		doneChans.Put(p.done)
		return query.Result{}, errors.New("schedule: scheduler closed")
	}
	s.ring()
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

// ring wakes the dispatcher if it sleeps, after its caller changed what
// it looks at (the inbox, the finished count, closing). The dispatcher
// says it sleeps before it looks a last time, so either it sees the change
// or it is woken.
func (s *Scheduler) ring() {
	if s.asleep.Load() {
		select {
		case s.bell <- struct{}{}:
		default: // already rung
		}
	}
}

// dispatchSpin is how long the dispatcher, with nothing to do, keeps
// looking before it sleeps: between arrivals microseconds apart, waking it
// would cost each arrival a goroutine switch.
const dispatchSpin = 50 * time.Microsecond

// dispatch is the dispatcher's loop: it moves arrivals into the queues,
// counts finished jobs Done and hands each worker its next jobs, until
// Close; then, once every worker has run what it was handed, it stops the
// workers and fails the jobs no worker could take.
func (s *Scheduler) dispatch() {
	defer close(s.stopped)
	for {
		if s.pass() {
			continue
		}
		if s.closing.Load() && s.quiet() {
			break
		}
		if !s.spin() {
			s.sleep()
		}
	}
	for _, w := range s.workers {
		w.mu.Lock()
		w.closed = true
		w.wake()
		w.mu.Unlock()
	}
	for _, j := range s.q.drain() {
		j.Payload.(*pending).done <- outcome{err: errors.New("schedule: scheduler closed")}
	}
}

// pass does what the dispatcher can do now and reports whether it did
// anything.
func (s *Scheduler) pass() bool {
	t := time.Now()
	s.admit = s.in.takeAll(s.admit)
	if s.closing.Load() && !s.inClosed {
		s.admit = append(s.admit, s.in.close()...)
		s.inClosed = true
	}
	progress := len(s.admit) > 0
	for i, j := range s.admit {
		s.q.Add(j)
		s.admit[i] = nil
	}
	for n := s.finished.Swap(0); n > 0; n-- {
		s.q.Done()
		progress = true
	}
	if s.q.Len() > 0 {
		now := time.Since(s.start)
		for _, w := range s.workers {
			if s.fill(w, now) > 0 {
				progress = true
			}
		}
	}
	if progress {
		s.usage.dispatch.Add(int64(time.Since(t)))
	}
	return progress
}

// quiet reports whether every worker has run all it was handed and the
// dispatcher has counted it: after a pass that did nothing, nothing is
// left to do once closing.
func (s *Scheduler) quiet() bool {
	for _, w := range s.workers {
		if w.out.Load() > 0 {
			return false
		}
	}
	// A worker adds to finished before it lowers out.
	return s.finished.Load() == 0
}

// newWork reports whether the dispatcher has something new to do: arrivals,
// finished jobs, or a Close to begin.
func (s *Scheduler) newWork() bool {
	return s.in.pending() || s.finished.Load() > 0 || s.closing.Load() && !s.inClosed
}

// spin looks for work for up to dispatchSpin and reports whether it
// found some.
func (s *Scheduler) spin() bool {
	until := time.Now().Add(dispatchSpin)
	for i := 0; ; i++ {
		if s.newWork() {
			return true
		}
		if i%64 == 63 && time.Now().After(until) {
			return false
		}
	}
}

// sleep waits for ring, unless there is work already.
func (s *Scheduler) sleep() {
	s.asleep.Store(true)
	if !s.newWork() {
		<-s.bell
	}
	s.asleep.Store(false)
}

// fill hands w the jobs it runs next, up to what it may hold (most), and
// returns how many.
func (s *Scheduler) fill(w *worker, now time.Duration) int {
	out := int(w.out.Load())
	if out >= s.most(w, out) {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for out+n < s.most(w, out) {
		j := s.q.Next(w.p, now)
		if j == nil {
			break
		}
		w.box = append(w.box, j)
		n++
	}
	if n > 0 {
		w.out.Add(int32(n))
		w.wake()
	}
	return n
}

// most is how many jobs worker w may hold, running or waiting in its box,
// when it held out before this fill: a GPU worker that batches, a batch
// if it held none (and no more while it holds one); a CPU worker, while
// more jobs wait than there are CPU workers (so that no worker idles
// while another holds jobs), 1+CPUAhead; otherwise one.
func (s *Scheduler) most(w *worker, out int) int {
	switch {
	case w.p == GPU && w.batch:
		if out > 0 {
			return out
		}
		return s.cfg.GPUBatch
	case w.p == CPU && s.cfg.Policy != PolicyBest && s.q.Len() > s.cfg.CPUWorkers:
		return 1 + s.cfg.CPUAhead
	}
	return 1
}

func newWorker(p Proc, e query.Engine) *worker {
	_, batch := e.(query.BatchEngine)
	return &worker{p: p, e: e, batch: batch, bell: make(chan struct{}, 1)}
}

// wake rings w's bell if it sleeps (w.mu held).
func (w *worker) wake() {
	if w.asleep {
		w.asleep = false
		w.bell <- struct{}{}
	}
}

// next moves the jobs w runs next into buf: the whole box if w batches,
// else its first job. It waits while the box is empty, and returns buf
// empty once w is closed.
func (w *worker) next(buf []*Job, idle *atomic.Int64) []*Job {
	for {
		w.mu.Lock()
		if len(w.box) > 0 {
			n := 1
			if w.batch {
				n = len(w.box)
			}
			buf = append(buf, w.box[:n]...)
			k := copy(w.box, w.box[n:])
			clear(w.box[k:])
			w.box = w.box[:k]
			w.mu.Unlock()
			return buf
		}
		if w.closed {
			w.mu.Unlock()
			return buf
		}
		w.asleep = true
		w.mu.Unlock()
		t := time.Now()
		<-w.bell
		idle.Add(int64(time.Since(t)))
	}
}

// work runs the jobs the dispatcher hands w until Close: on a GPU whose
// engine answers batches, all it was handed at once, as one batch; on a
// CPU one job at a time.
func (s *Scheduler) work(w *worker) {
	defer s.wg.Done()
	p := w.p
	be, _ := w.e.(query.BatchEngine)
	var jobs []*Job
	var bufs runBufs
	for {
		jobs = w.next(jobs[:0], &s.usage.idle[p])
		if len(jobs) == 0 {
			return
		}
		start := time.Now()
		outs := s.run(p, w.e, be, jobs, &bufs)
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
		s.finished.Add(int64(len(jobs)))
		w.out.Add(-int32(len(jobs)))
		s.ring()
	}
}

// inbox is where Search leaves jobs for the workers: a stack that Search
// pushes onto with a compare-and-swap and a worker empties in one, so
// that an arrival never waits for a lock. (Against the mutex it replaced,
// no change in hybrid's highest rate was measured: docs/scheduling.md,
// runs BN-BO.)
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
	switch {
	case len(qs) == 1:
		i := live[0]
		pd := jobs[i].Payload.(*pending)
		if p == CPU {
			e = pd.cpu
		}
		outs[i].res, outs[i].err = e.Search(pd.ctx, pd.q)
	case len(qs) > 1:
		// The batch outlives any one caller's context; each caller
		// still stops waiting when its own is done.
		rs, err := be.SearchBatch(context.Background(), qs)
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
// last engine call, and the dispatcher's time.
func (s *Scheduler) Usage() Usage {
	var u Usage
	c := &s.usage
	for p := range u.Queries {
		u.Queries[p] = c.queries[p].Load()
		u.Busy[p] = time.Duration(c.busy[p].Load())
		u.Calls[p] = c.calls[p].Load()
		u.Idle[p] = time.Duration(c.idle[p].Load())
	}
	u.Dispatch = time.Duration(c.dispatch.Load())
	return u
}

// Close stops the workers once the queued jobs have run; jobs no worker
// could take (a queue without its processor) fail.
func (s *Scheduler) Close() error {
	s.closing.Store(true)
	s.ring()
	<-s.stopped
	s.wg.Wait()
	return nil
}
