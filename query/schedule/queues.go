package schedule

import (
	"fmt"
	"time"
)

// Proc is a kind of processor.
type Proc int

// The processors.
const (
	CPU Proc = iota
	GPU
)

func (p Proc) String() string { return [...]string{"cpu", "gpu"}[p] }

func (p Proc) other() Proc { return 1 - p }

// Policy names a scheduling policy.
type Policy string

// The policies (see the package doc).
const (
	PolicyCPU    Policy = "cpu"
	PolicyGPU    Policy = "gpu"
	PolicyBest   Policy = "best"
	PolicyHybrid Policy = "hybrid"
)

// ParsePolicy checks a policy name.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case PolicyCPU, PolicyGPU, PolicyBest, PolicyHybrid:
		return p, nil
	}
	return "", fmt.Errorf("schedule: unknown policy %q (want cpu, gpu, best or hybrid)", s)
}

// Job is one query waiting to run. Times are durations on the caller's
// clock (the simulator's, or time since the scheduler started).
type Job struct {
	ID       uint64
	Arrival  time.Duration
	Deadline time.Duration // absolute, on the same clock
	Cost     [2]time.Duration
	Payload  any

	class int    // 0 cpu-preferred, 1 gpu-preferred, 2 either
	queue int    // index into Queues.q: class, or for "either" eitherCPU or eitherGPU by Preferred
	seq   uint64 // order of Add: ties in every order go to the older job
	taken bool
	next  *Job // the Scheduler's inbox: the job put before this one
}

// Preferred is the processor with the lower predicted cost.
func (j *Job) Preferred() Proc {
	if j.Cost[GPU] < j.Cost[CPU] {
		return GPU
	}
	return CPU
}

// ratio is the job's CPU cost over its GPU cost: the larger, the more the
// GPU saves by running it.
func (j *Job) ratio() float64 { return float64(j.Cost[CPU]) / max(1, float64(j.Cost[GPU])) }

// The "either" queue is kept as two, by preferred processor, so that
// promotion finds its urgent jobs for a processor at their fronts.
const (
	either    = 2
	eitherCPU = either + int(CPU)
	eitherGPU = either + int(GPU)
	queues    = 4
)

// Queues holds the waiting jobs and decides which one an idle processor
// runs next. Every pick is O(1), amortized. It is not safe
// for concurrent use: callers serialise.
type Queues struct {
	policy  Policy
	hasGPU  bool
	margin  float64 // relative advantage that makes a job processor-bound
	promote float64 // fraction of the time to deadline after which a job is urgent
	anyProc bool    // an urgent job runs on whichever processor asks first
	oldest  bool    // the first version's order (Options.StealOldest)
	q       [queues]queue
	seq     uint64
	running int
}

// Options tune Queues.
type Options struct {
	// Margin: a job goes to a processor's own queue when it is predicted
	// at least this much faster there (default 0.2, the paper's 20%).
	Margin float64
	// Promote: a job becomes urgent after waiting this fraction of its
	// time to deadline (default 0.5).
	Promote float64
	// UrgentAnyProc: under hybrid, an urgent job goes to whichever
	// processor asks first, not only to the one it prefers.
	UrgentAnyProc bool
	// StealOldest restores the first version's order, for comparison: the
	// GPU takes the job of its own queue that is cheapest on it, and a
	// thief the oldest job of the other queue.
	StealOldest bool
}

// NewQueues makes empty queues for a policy. Without a GPU, every policy
// but PolicyGPU runs everything on the CPU.
func NewQueues(p Policy, hasGPU bool, o Options) *Queues {
	if o.Margin <= 0 {
		o.Margin = 0.2
	}
	if o.Promote <= 0 {
		o.Promote = 0.5
	}
	s := &Queues{policy: p, hasGPU: hasGPU, margin: o.Margin, promote: o.Promote, anyProc: o.UrgentAnyProc && p == PolicyHybrid, oldest: o.StealOldest}
	// Each queue keeps its jobs in every order Next picks it by: arrival
	// (urgency, "best", "either", an oldest-first thief), its own
	// processor's order and the thief's.
	if s.oldest {
		s.q[CPU].init(byArrival, byCPUCost)
		s.q[GPU].init(byArrival, byGPUCost)
	} else {
		s.q[CPU].init(byArrival, byCPUCost, byGPUAffinity)
		s.q[GPU].init(byArrival, byGPUAffinity, byCPUAffinity)
	}
	s.q[eitherCPU].init(byArrival)
	s.q[eitherGPU].init(byArrival)
	return s
}

// Len is the number of waiting jobs.
func (s *Queues) Len() int {
	n := 0
	for i := range s.q {
		n += s.q[i].live
	}
	return n
}

// Add queues a job.
func (s *Queues) Add(j *Job) {
	j.class = s.classify(j)
	j.queue = j.class
	if j.class == either {
		j.queue = either + int(j.Preferred())
	}
	s.seq++
	j.seq, j.taken = s.seq, false
	s.q[j.queue].add(j)
}

// classify returns the class of a job: CPU, GPU or either.
func (s *Queues) classify(j *Job) int {
	switch {
	case s.policy == PolicyGPU:
		return int(GPU)
	case s.policy == PolicyCPU || !s.hasGPU:
		return int(CPU)
	case s.policy == PolicyBest:
		return int(j.Preferred())
	}
	c, g := float64(j.Cost[CPU]), float64(j.Cost[GPU])
	switch {
	case g < (1-s.margin)*c:
		return int(GPU)
	case c < (1-s.margin)*g:
		return int(CPU)
	}
	return either
}

// Next removes and returns the job processor p should run now, or nil
// (the order is in the package doc). Done must be called when the job
// finishes.
func (s *Queues) Next(p Proc, now time.Duration) *Job {
	own := &s.q[p]
	if s.policy == PolicyBest {
		// One query at a time: the oldest, on its preferred processor.
		if s.running > 0 || own.live == 0 || !s.olderThanOther(p) {
			return nil
		}
		return s.take(own.peek(byArrival))
	}
	if j := s.urgent(p, now); j != nil {
		return s.take(j)
	}
	if own.live > 0 {
		switch {
		case p == CPU:
			return s.take(own.peek(byCPUCost))
		case s.oldest:
			return s.take(own.peek(byGPUCost))
		default:
			return s.take(own.peek(byGPUAffinity))
		}
	}
	if s.policy != PolicyHybrid {
		return nil
	}
	if j := older(s.q[eitherCPU].peek(byArrival), s.q[eitherGPU].peek(byArrival)); j != nil {
		return s.take(j)
	}
	if other := &s.q[p.other()]; other.live > 0 { // steal
		switch {
		case s.oldest:
			return s.take(other.peek(byArrival))
		case p == CPU:
			return s.take(other.peek(byCPUAffinity))
		default:
			return s.take(other.peek(byGPUAffinity))
		}
	}
	return nil
}

// Done records that a job taken with Next has finished.
func (s *Queues) Done() { s.running-- }

func (s *Queues) take(j *Job) *Job {
	s.q[j.queue].take(j)
	s.running++
	return j
}

// urgent finds the waiting job closest to its deadline among those that
// passed the promotion point and would run on p: p's own queue, or the
// either queue's jobs that prefer p (with UrgentAnyProc: every queue).
// Each queue's oldest job stands for it: callers give every job the same
// time to deadline, so deadlines follow arrivals.
func (s *Queues) urgent(p Proc, now time.Duration) *Job {
	candidates := [...]int{int(p), either + int(p), int(p.other()), either + int(p.other())}
	n := 2
	if s.anyProc {
		n = 4
	}
	var best *Job
	for _, i := range candidates[:n] {
		j := s.q[i].peek(byArrival)
		if j == nil {
			continue
		}
		wait, slack := now-j.Arrival, j.Deadline-j.Arrival
		if float64(wait) < s.promote*float64(slack) {
			continue
		}
		if best == nil || j.Deadline < best.Deadline {
			best = j
		}
	}
	return best
}

// older returns the job that arrived first (nil for none).
func older(a, b *Job) *Job {
	switch {
	case a == nil:
		return b
	case b == nil || a.seq < b.seq:
		return a
	}
	return b
}

// olderThanOther reports whether p's oldest job arrived before the other
// processor's oldest (so "best" serves jobs in arrival order).
func (s *Queues) olderThanOther(p Proc) bool {
	o := s.q[p.other()].peek(byArrival)
	return o == nil || s.q[p].peek(byArrival).Arrival <= o.Arrival
}

// drain removes and returns every waiting job.
func (s *Queues) drain() []*Job {
	var all []*Job
	for i := range s.q {
		for j := s.q[i].peek(byArrival); j != nil; j = s.q[i].peek(byArrival) {
			all = append(all, s.take(j))
			s.running--
		}
	}
	return all
}
