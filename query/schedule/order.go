package schedule

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

// key is job j's rank in order o, smaller first; ties go to the older job
// (the smaller seq), so every order is total.
func (o order) key(j *Job) float64 {
	switch o {
	case byCPUCost:
		return float64(j.Cost[CPU])
	case byGPUCost:
		return float64(j.Cost[GPU])
	case byGPUAffinity:
		return -j.ratio()
	case byCPUAffinity:
		return j.ratio()
	}
	return 0 // byArrival: seq alone
}

// queue holds one queue's jobs in a heap per order it is picked by (the
// others stay empty; peek must not be asked for them). A job taken
// through one order is marked taken and left in the others until it
// reaches their top (lazy deletion); a heap is rebuilt once it holds
// maxTaken more taken jobs than live ones, so that memory stays
// proportional to the waiting jobs and the rebuilds cost O(1) per job,
// amortized.
type queue struct {
	heaps [orders]jobHeap
	used  []order
	live  int
}

// init readies q for picks in the orders given.
func (q *queue) init(used ...order) {
	q.used = used
	for o := range q.heaps {
		q.heaps[o].order = order(o)
	}
}

func (q *queue) add(j *Job) {
	q.live++
	for _, o := range q.used {
		q.heaps[o].push(j)
	}
}

// take marks j, one of q's live jobs, taken.
func (q *queue) take(j *Job) {
	j.taken = true
	q.live--
	for _, o := range q.used {
		if h := &q.heaps[o]; len(h.items) > 2*q.live+maxTaken {
			h.compact()
		}
	}
}

// maxTaken is how many taken jobs beyond the live ones a heap may hold.
const maxTaken = 64

// peek returns the first live job in order o, or nil.
func (q *queue) peek(o order) *Job {
	h := &q.heaps[o]
	for len(h.items) > 0 && h.items[0].job.taken {
		h.pop()
	}
	if len(h.items) == 0 {
		return nil
	}
	return h.items[0].job
}

// jobHeap is a binary min-heap of jobs by (key, seq) in one order; each
// item carries its key, computed once at push.
type jobHeap struct {
	order order
	items []heapItem
}

type heapItem struct {
	key float64
	seq uint64
	job *Job
}

func (a heapItem) before(b heapItem) bool {
	return a.key < b.key || (a.key == b.key && a.seq < b.seq)
}

func (h *jobHeap) push(j *Job) {
	h.items = append(h.items, heapItem{key: h.order.key(j), seq: j.seq, job: j})
	h.up(len(h.items) - 1)
}

// pop removes the first item.
func (h *jobHeap) pop() {
	n := len(h.items) - 1
	h.items[0] = h.items[n]
	h.items[n] = heapItem{}
	h.items = h.items[:n]
	h.down(0)
}

func (h *jobHeap) up(i int) {
	it := h.items[i]
	for i > 0 {
		p := (i - 1) / 2
		if !it.before(h.items[p]) {
			break
		}
		h.items[i] = h.items[p]
		i = p
	}
	h.items[i] = it
}

func (h *jobHeap) down(i int) {
	n := len(h.items)
	if n == 0 {
		return
	}
	it := h.items[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.items[c+1].before(h.items[c]) {
			c++
		}
		if !h.items[c].before(it) {
			break
		}
		h.items[i] = h.items[c]
		i = c
	}
	h.items[i] = it
}

// compact drops the taken jobs and restores the heap.
func (h *jobHeap) compact() {
	live := h.items[:0]
	for _, it := range h.items {
		if !it.job.taken {
			live = append(live, it)
		}
	}
	clear(h.items[len(live):])
	h.items = live
	for i := len(live)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}
