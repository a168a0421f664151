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

	class int // queue index: 0 cpu-preferred, 1 gpu-preferred, 2 either
}

// Preferred is the processor with the lower predicted cost.
func (j *Job) Preferred() Proc {
	if j.Cost[GPU] < j.Cost[CPU] {
		return GPU
	}
	return CPU
}

const either = 2

// Queues holds the waiting jobs and decides which one an idle processor
// runs next. It is not safe for concurrent use: callers serialise.
type Queues struct {
	policy  Policy
	hasGPU  bool
	margin  float64 // relative advantage that makes a job processor-bound
	promote float64 // fraction of the time to deadline after which a job is urgent
	anyProc bool    // an urgent job runs on whichever processor asks first
	oldest  bool    // the first version's order (Options.StealOldest)
	q       [3][]*Job
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
	return &Queues{policy: p, hasGPU: hasGPU, margin: o.Margin, promote: o.Promote, anyProc: o.UrgentAnyProc && p == PolicyHybrid, oldest: o.StealOldest}
}

// Len is the number of waiting jobs.
func (s *Queues) Len() int { return len(s.q[0]) + len(s.q[1]) + len(s.q[2]) }

// Add queues a job.
func (s *Queues) Add(j *Job) {
	j.class = s.classify(j)
	s.q[j.class] = append(s.q[j.class], j)
}

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
// (the order is in the package doc).
// Done must be called when the job finishes.
func (s *Queues) Next(p Proc, now time.Duration) *Job {
	if s.policy == PolicyBest {
		// One query at a time: the oldest, on its preferred processor.
		if s.running > 0 || len(s.q[p]) == 0 || !s.olderThanOther(p) {
			return nil
		}
		return s.take(int(p), 0)
	}
	if j := s.urgent(p, now); j != nil {
		return j
	}
	if len(s.q[p]) > 0 {
		if p == GPU && !s.oldest {
			return s.take(int(p), s.closest(int(p), p))
		}
		return s.take(int(p), s.cheapest(int(p), p))
	}
	if s.policy != PolicyHybrid {
		return nil
	}
	if len(s.q[either]) > 0 {
		return s.take(either, 0)
	}
	if o := int(p.other()); len(s.q[o]) > 0 { // steal
		if s.oldest {
			return s.take(o, 0)
		}
		return s.take(o, s.closest(o, p))
	}
	return nil
}

// Done records that a job taken with Next has finished.
func (s *Queues) Done() { s.running-- }

func (s *Queues) take(class, i int) *Job {
	q := s.q[class]
	j := q[i]
	s.q[class] = append(q[:i], q[i+1:]...)
	s.running++
	return j
}

// urgent finds the waiting job closest to its deadline among those that
// passed the promotion point and would run on p: p's own queue, or the
// either queue when p is the job's preferred processor (with
// UrgentAnyProc: every queue).
func (s *Queues) urgent(p Proc, now time.Duration) *Job {
	best, bestClass, bestIdx := (*Job)(nil), 0, 0
	classes := []int{int(p), either}
	if s.anyProc {
		classes = append(classes, int(p.other()))
	}
	for _, class := range classes {
		for i, j := range s.q[class] {
			if class == either && j.Preferred() != p && !s.anyProc {
				continue
			}
			wait, slack := now-j.Arrival, j.Deadline-j.Arrival
			if float64(wait) < s.promote*float64(slack) {
				continue
			}
			if best == nil || j.Deadline < best.Deadline {
				best, bestClass, bestIdx = j, class, i
			}
		}
	}
	if best == nil {
		return nil
	}
	return s.take(bestClass, bestIdx)
}

// cheapest is the index of the job of a queue with the lowest cost on p,
// the oldest among equals.
func (s *Queues) cheapest(class int, p Proc) int {
	best := 0
	for i, j := range s.q[class] {
		if j.Cost[p] < s.q[class][best].Cost[p] {
			best = i
		}
	}
	return best
}

// closest is the index of the job of a queue that p is best suited for:
// the largest ratio of its cost elsewhere to its cost on p, the oldest
// among equals.
func (s *Queues) closest(class int, p Proc) int {
	best, bestR := 0, -1.0
	for i, j := range s.q[class] {
		r := float64(j.Cost[p.other()]) / max(1, float64(j.Cost[p]))
		if r > bestR {
			best, bestR = i, r
		}
	}
	return best
}

// olderThanOther reports whether p's oldest job arrived before the other
// processor's oldest (so "best" serves jobs in arrival order).
func (s *Queues) olderThanOther(p Proc) bool {
	o := s.q[p.other()]
	return len(o) == 0 || s.q[p][0].Arrival <= o[0].Arrival
}

// drain removes and returns every waiting job.
func (s *Queues) drain() []*Job {
	var all []*Job
	for i := range s.q {
		all = append(all, s.q[i]...)
		s.q[i] = nil
	}
	return all
}
