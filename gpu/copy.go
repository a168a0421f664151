package gpu

import (
	"runtime"
	"sync"
)

// copyShare is the smallest share of a parallel copy worth a goroutine.
const copyShare = 1 << 20

// copyParallel copies src into dst (of the same length) in shares of at
// least copyShare bytes, one goroutine each, at most GOMAXPROCS: a large
// copy into fresh memory is bound by page faults and memory latency on one
// core, and scales with cores.
func copyParallel(dst, src []byte) {
	parts := min(runtime.GOMAXPROCS(0), max(1, len(dst)/copyShare))
	if parts == 1 {
		copy(dst, src)
		return
	}
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := len(dst)*i/parts, len(dst)*(i+1)/parts
		wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
	}
	wg.Wait()
}
