package broker

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// windowSize is how many recent latencies a window keeps: enough for a
// stable p95 and p99, few enough to follow a change within seconds.
const windowSize = 1024

// window keeps the latest latencies of something and their quantiles. The
// p95 that hedging reads on every request is recomputed every 64 samples
// rather than sorted per read.
type window struct {
	mu   sync.Mutex
	d    [windowSize]time.Duration
	n    int // samples held, up to windowSize
	next int
	adds int
	p95  atomic.Int64 // ns; 0 until minHedgeSamples are held
}

// minHedgeSamples is how many samples a p95 needs before requests are
// hedged against it.
const minHedgeSamples = 32

func newWindow() *window { return &window{} }

// add records one latency.
func (w *window) add(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.d[w.next] = d
	w.next = (w.next + 1) % windowSize
	w.n = min(w.n+1, windowSize)
	if w.adds++; w.n >= minHedgeSamples && w.adds%64 == 0 {
		w.p95.Store(int64(w.quantilesLocked(0.95)[0]))
	}
}

// P95 is the running p95, 0 while too few samples are held.
func (w *window) P95() time.Duration { return time.Duration(w.p95.Load()) }

// quantiles returns the qs-quantiles of the held samples (0 when none).
func (w *window) quantiles(qs ...float64) []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.quantilesLocked(qs...)
}

func (w *window) quantilesLocked(qs ...float64) []time.Duration {
	out := make([]time.Duration, len(qs))
	if w.n == 0 {
		return out
	}
	s := slices.Clone(w.d[:w.n])
	slices.Sort(s)
	for i, q := range qs {
		out[i] = s[min(w.n-1, int(q*float64(w.n)))]
	}
	return out
}
