package schedule

import (
	"math"
	"math/bits"
)

// An order ranks the jobs of a queue for one kind of pick.
type order int

const (
	byArrival     order = iota // oldest first
	byCPUCost                  // cheapest on the CPU first
	byGPUCost                  // cheapest on the GPU first
	byGPUAffinity              // largest CPU/GPU cost ratio first
	byCPUAffinity              // smallest CPU/GPU cost ratio first
	orders
)

// A measure is what a cost order ranks jobs by; the two affinities rank
// by the same one, from either end.
type measure int

const (
	cpuCost measure = iota
	gpuCost
	costRatio
)

func (o order) measure() measure {
	switch o {
	case byCPUCost:
		return cpuCost
	case byGPUCost:
		return gpuCost
	}
	return costRatio
}

// of is job j's value of the measure.
func (m measure) of(j *Job) float64 {
	switch m {
	case cpuCost:
		return float64(j.Cost[CPU])
	case gpuCost:
		return float64(j.Cost[GPU])
	}
	return j.ratio()
}

const (
	bucketsPerOctave = 16
	lowestOctave     = -32 // values below 2^-32 share the first bucket
	nBuckets         = 21 * 64
)

// The cost orders rank jobs by bucket, the measure quantized to a
// sixteenth of an octave, older first within a bucket, which makes every
// pick O(1) whatever the backlog: with heaps, the scheduler's lock was
// held about a microsecond a query at backlogs of 10^5 jobs, and was what
// stopped hybrid (docs/scheduling.md). The cost models' own errors
// (11%-35% on average) are far coarser than the 4.4% of a bucket.
//
// bucketOf maps x to a bucket, monotonically: 0 for x <= 0 (or NaN), then
// one bucket per sixteenth of an octave from 2^-32, the last one holding
// everything from 2^51. For a positive float the exponent and the top 4
// bits of the mantissa, read together, order like the value.
func bucketOf(x float64) int {
	if !(x > 0) {
		return 0
	}
	b := math.Float64bits(x)
	exp := int(b>>52) - 1023 // unbiased exponent
	k := (exp-lowestOctave)*bucketsPerOctave + int(b>>48)&(bucketsPerOctave-1) + 1
	return min(max(k, 1), nBuckets-1)
}

// queue holds one queue's jobs in arrival order and in each cost order it
// is picked by (peek must not be asked for others). A job taken through
// one order is marked taken and left in the others until it reaches their
// front (lazy deletion); a structure is compacted once it holds maxTaken
// more taken jobs than live ones, so that memory stays proportional to
// the waiting jobs and the compactions cost O(1) per job, amortized.
type queue struct {
	arrival fifo
	byCost  [orders]*bucketQueue // by order; the affinities share theirs
	lists   []*bucketQueue       // each of byCost once
	live    int
}

// init readies q for picks in the orders given (byArrival is always
// kept: Add numbers jobs in arrival order, so a FIFO holds them in it).
func (q *queue) init(used ...order) {
	for _, o := range used {
		if o == byArrival {
			continue
		}
		for _, l := range q.lists {
			if l.measure == o.measure() {
				q.byCost[o] = l
			}
		}
		if q.byCost[o] == nil {
			q.byCost[o] = &bucketQueue{measure: o.measure()}
			q.lists = append(q.lists, q.byCost[o])
		}
	}
}

func (q *queue) add(j *Job) {
	q.live++
	q.arrival.push(j)
	for _, l := range q.lists {
		l.push(j)
	}
}

// take marks j, one of q's live jobs, taken.
func (q *queue) take(j *Job) {
	j.taken = true
	q.live--
	if q.arrival.len() > 2*q.live+maxTaken {
		q.arrival.compact()
	}
	for _, l := range q.lists {
		if l.n > 2*q.live+maxTaken {
			l.compact()
		}
	}
}

// maxTaken is how many taken jobs beyond the live ones a structure may hold.
const maxTaken = 64

// peek returns the first live job in order o, or nil.
func (q *queue) peek(o order) *Job {
	switch o {
	case byArrival:
		j, _ := q.arrival.front()
		return j
	case byGPUAffinity:
		return q.byCost[o].last()
	}
	return q.byCost[o].first()
}

// fifo is a queue of jobs in the order pushed.
type fifo struct {
	items []*Job
	head  int
}

func (f *fifo) push(j *Job) { f.items = append(f.items, j) }

func (f *fifo) len() int { return len(f.items) - f.head }

// front drops the taken jobs at the front and returns the first live one
// (nil if none) and how many it dropped.
func (f *fifo) front() (*Job, int) {
	dropped := 0
	for f.head < len(f.items) && f.items[f.head].taken {
		f.items[f.head] = nil
		f.head++
		dropped++
	}
	if f.head == len(f.items) {
		f.items, f.head = f.items[:0], 0
		return nil, dropped
	}
	return f.items[f.head], dropped
}

// compact drops every taken job, keeping the order of the others.
func (f *fifo) compact() {
	live := f.items[:0]
	for _, j := range f.items[f.head:] {
		if !j.taken {
			live = append(live, j)
		}
	}
	clear(f.items[len(live):])
	f.items, f.head = live, 0
}

// bucketQueue holds jobs by the bucket of a measure, each bucket in
// arrival order, with a bit per bucket that may hold jobs: its first and
// last live jobs are found in O(nBuckets/64) word scans.
type bucketQueue struct {
	measure  measure
	buckets  [nBuckets]fifo
	nonempty [nBuckets / 64]uint64
	n        int // jobs held, taken ones included
}

func (b *bucketQueue) push(j *Job) {
	k := bucketOf(b.measure.of(j))
	b.buckets[k].push(j)
	b.nonempty[k/64] |= 1 << (k % 64)
	b.n++
}

// first returns the oldest live job of the lowest bucket, or nil.
func (b *bucketQueue) first() *Job {
	for w := range b.nonempty {
		for b.nonempty[w] != 0 {
			k := w*64 + bits.TrailingZeros64(b.nonempty[w])
			if j := b.front(k); j != nil {
				return j
			}
		}
	}
	return nil
}

// last returns the oldest live job of the highest bucket, or nil.
func (b *bucketQueue) last() *Job {
	for w := len(b.nonempty) - 1; w >= 0; w-- {
		for b.nonempty[w] != 0 {
			k := w*64 + 63 - bits.LeadingZeros64(b.nonempty[w])
			if j := b.front(k); j != nil {
				return j
			}
		}
	}
	return nil
}

// front returns bucket k's first live job, clearing its bit when it has
// none.
func (b *bucketQueue) front(k int) *Job {
	j, dropped := b.buckets[k].front()
	b.n -= dropped
	if j == nil {
		b.nonempty[k/64] &^= 1 << (k % 64)
	}
	return j
}

// compact drops every taken job.
func (b *bucketQueue) compact() {
	b.n = 0
	for w := range b.nonempty {
		for m := b.nonempty[w]; m != 0; m &= m - 1 {
			k := w*64 + bits.TrailingZeros64(m)
			f := &b.buckets[k]
			f.compact()
			if f.len() == 0 {
				b.nonempty[w] &^= 1 << (k % 64)
			}
			b.n += f.len()
		}
	}
}
