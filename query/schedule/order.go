package schedule

import "container/heap"

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

// before reports whether a ranks ahead of b in order o; ties go to the
// older job, so every order is total.
func (o order) before(a, b *Job) bool {
	var x, y float64
	switch o {
	case byCPUCost:
		x, y = float64(a.Cost[CPU]), float64(b.Cost[CPU])
	case byGPUCost:
		x, y = float64(a.Cost[GPU]), float64(b.Cost[GPU])
	case byGPUAffinity:
		x, y = -a.ratio(), -b.ratio()
	case byCPUAffinity:
		x, y = a.ratio(), b.ratio()
	}
	if x != y {
		return x < y
	}
	return a.seq < b.seq
}

// queue holds one queue's jobs in a heap per order. A job taken through
// one order is marked taken and left in the others until it reaches their
// top (lazy deletion); a heap is rebuilt once it holds maxTaken more taken
// jobs than live ones, so that memory stays proportional to the waiting
// jobs and the rebuilds cost O(1) per job, amortized.
type queue struct {
	heaps [orders]jobHeap
	live  int
}

func (q *queue) init() {
	for o := range q.heaps {
		q.heaps[o].order = order(o)
	}
}

func (q *queue) add(j *Job) {
	q.live++
	for o := range q.heaps {
		heap.Push(&q.heaps[o], j)
	}
}

// take marks j, one of q's live jobs, taken.
func (q *queue) take(j *Job) {
	j.taken = true
	q.live--
	for o := range q.heaps {
		if h := &q.heaps[o]; len(h.jobs) > 2*q.live+maxTaken {
			h.compact()
		}
	}
}

// maxTaken is how many taken jobs beyond the live ones a heap may hold.
const maxTaken = 64

// peek returns the first live job in order o, or nil.
func (q *queue) peek(o order) *Job {
	h := &q.heaps[o]
	for len(h.jobs) > 0 && h.jobs[0].taken {
		heap.Pop(h)
	}
	if len(h.jobs) == 0 {
		return nil
	}
	return h.jobs[0]
}

// jobHeap is a binary heap of jobs in one order (container/heap).
type jobHeap struct {
	order order
	jobs  []*Job
}

func (h *jobHeap) Len() int           { return len(h.jobs) }
func (h *jobHeap) Less(i, j int) bool { return h.order.before(h.jobs[i], h.jobs[j]) }
func (h *jobHeap) Swap(i, j int)      { h.jobs[i], h.jobs[j] = h.jobs[j], h.jobs[i] }
func (h *jobHeap) Push(x any)         { h.jobs = append(h.jobs, x.(*Job)) }
func (h *jobHeap) Pop() any {
	n := len(h.jobs) - 1
	j := h.jobs[n]
	h.jobs[n] = nil
	h.jobs = h.jobs[:n]
	return j
}

// compact drops the taken jobs and restores the heap.
func (h *jobHeap) compact() {
	live := h.jobs[:0]
	for _, j := range h.jobs {
		if !j.taken {
			live = append(live, j)
		}
	}
	clear(h.jobs[len(live):])
	h.jobs = live
	heap.Init(h)
}
