package schedule

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// key is job j's rank in order o as Queues picks, smaller first; ties go
// to the older job: the cost orders rank by bucket (bucketOf), the GPU's
// affinity from the highest bucket down.
func (o order) key(j *Job) int {
	switch o {
	case byArrival:
		return 0 // seq alone
	case byGPUAffinity:
		return -bucketOf(j.ratio())
	}
	return bucketOf(o.measure().of(j))
}

// refQueues is Queues written plainly: each queue a slice in arrival
// order, each pick a scan for the first job in the pick's order.
type refQueues struct {
	s *Queues // for classify and the options
	q [queues][]*Job
}

func (r *refQueues) add(j *Job) {
	c := r.s.classify(j)
	i := c
	if c == either {
		i = either + int(j.Preferred())
	}
	r.q[i] = append(r.q[i], j)
}

// first is the index of the first job of queue i in order o (-1: none):
// the smallest key, the oldest among equal keys.
func (r *refQueues) first(i int, o order) int {
	best := -1
	for k, j := range r.q[i] {
		if best < 0 || o.key(j) < o.key(r.q[i][best]) {
			best = k
		}
	}
	return best
}

func (r *refQueues) take(i, k int) *Job {
	j := r.q[i][k]
	r.q[i] = append(r.q[i][:k], r.q[i][k+1:]...)
	return j
}

func (r *refQueues) next(p Proc, now time.Duration, running int) *Job {
	s := r.s
	own := int(p)
	if s.policy == PolicyBest {
		o := r.first(int(p.other()), byArrival)
		if running > 0 || len(r.q[own]) == 0 || o >= 0 && r.q[own][0].Arrival > r.q[p.other()][o].Arrival {
			return nil
		}
		return r.take(own, 0)
	}
	cands := []int{own, either + int(p)}
	if s.anyProc {
		cands = append(cands, int(p.other()), either+int(p.other()))
	}
	bi, bk := -1, -1
	for _, i := range cands {
		if len(r.q[i]) == 0 {
			continue
		}
		j := r.q[i][0]
		if float64(now-j.Arrival) < s.promote*float64(j.Deadline-j.Arrival) {
			continue
		}
		if bi < 0 || j.Deadline < r.q[bi][bk].Deadline {
			bi, bk = i, 0
		}
	}
	if bi >= 0 {
		return r.take(bi, bk)
	}
	if len(r.q[own]) > 0 {
		o := byGPUAffinity
		if p == CPU {
			o = byCPUCost
		} else if s.oldest {
			o = byGPUCost
		}
		return r.take(own, r.first(own, o))
	}
	if s.policy != PolicyHybrid {
		return nil
	}
	a, b := r.first(eitherCPU, byArrival), r.first(eitherGPU, byArrival)
	switch {
	case a >= 0 && (b < 0 || r.q[eitherCPU][a].seq < r.q[eitherGPU][b].seq):
		return r.take(eitherCPU, a)
	case b >= 0:
		return r.take(eitherGPU, b)
	}
	other := int(p.other())
	if len(r.q[other]) == 0 {
		return nil
	}
	o := byGPUAffinity
	switch {
	case s.oldest:
		o = byArrival
	case p == CPU:
		o = byCPUAffinity
	}
	return r.take(other, r.first(other, o))
}

func TestQueuesMatchReference(t *testing.T) {
	for _, tt := range []struct {
		policy Policy
		o      Options
	}{
		{PolicyHybrid, Options{}},
		{PolicyHybrid, Options{StealOldest: true}},
		{PolicyHybrid, Options{UrgentAnyProc: true, Margin: 0.5}},
		{PolicyCPU, Options{}},
		{PolicyGPU, Options{}},
		{PolicyBest, Options{}},
	} {
		t.Run(string(tt.policy), func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, uint64(len(tt.policy))))
			q := NewQueues(tt.policy, true, tt.o)
			ref := &refQueues{s: NewQueues(tt.policy, true, tt.o)}
			var now time.Duration
			running := 0
			for step := range 20000 {
				now += time.Duration(r.IntN(200)) * time.Microsecond
				if r.IntN(100) < 55 { // a burst of arrivals builds up queues
					c, g := time.Duration(1+r.IntN(50))*ms/10, time.Duration(1+r.IntN(50))*ms/10
					j := &Job{ID: uint64(step), Arrival: now, Deadline: now + 100*ms, Cost: [2]time.Duration{c, g}}
					q.Add(j)
					ref.add(j)
					continue
				}
				if running > 0 && r.IntN(3) == 0 {
					q.Done()
					running--
					continue
				}
				p := Proc(r.IntN(2))
				want := ref.next(p, now, running)
				got := q.Next(p, now)
				if got != want {
					t.Fatalf("step %d: Next(%v) = %+v, want %+v", step, p, got, want)
				}
				if got != nil {
					running++
				}
				n := 0
				for i := range ref.q {
					n += len(ref.q[i])
				}
				if q.Len() != n {
					t.Fatalf("step %d: Len = %d, want %d", step, q.Len(), n)
				}
				for i := range q.q {
					qi := &q.q[i]
					if qi.arrival.len() > 2*qi.live+maxTaken {
						t.Fatalf("step %d: queue %d's FIFO holds %d jobs for %d live", step, i, qi.arrival.len(), qi.live)
					}
					for k, l := range qi.lists {
						if l.n > 2*qi.live+maxTaken {
							t.Fatalf("step %d: queue %d's bucket queue %d holds %d jobs for %d live", step, i, k, l.n, qi.live)
						}
					}
				}
			}
		})
	}
}

// TestBucketOf: buckets order like the values, a sixteenth of an octave
// each, with everything not positive in bucket 0 and the ends clamped.
func TestBucketOf(t *testing.T) {
	for _, tt := range []struct {
		x    float64
		want int
	}{
		{0, 0},
		{-1, 0},
		{math.NaN(), 0},
		{math.SmallestNonzeroFloat64, 1},
		{0x1p-40, 1},
		{0x1p-32, 1},
		{0x1p-32 * 1.0625, 2},
		{1, 32*16 + 1},
		{1.0624, 32*16 + 1},
		{1.0625, 32*16 + 2},
		{2, 33*16 + 1},
		{math.MaxFloat64, nBuckets - 1},
		{math.Inf(1), nBuckets - 1},
	} {
		if got := bucketOf(tt.x); got != tt.want {
			t.Errorf("bucketOf(%g) = %d, want %d", tt.x, got, tt.want)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		a, b := math.Exp(r.NormFloat64()*20), math.Exp(r.NormFloat64()*20)
		if a > b {
			a, b = b, a
		}
		if bucketOf(a) > bucketOf(b) {
			t.Fatalf("bucketOf(%g) = %d > bucketOf(%g) = %d", a, bucketOf(a), b, bucketOf(b))
		}
		if b >= a*1.125 && bucketOf(b) == bucketOf(a) && bucketOf(a) > 1 && bucketOf(b) < nBuckets-1 {
			t.Fatalf("%g and %g, an eighth of an octave apart, share bucket %d", a, b, bucketOf(a))
		}
	}
}
