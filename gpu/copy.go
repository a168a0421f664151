package gpu

import (
	"runtime"
	"sync"
)

// copyShare is the smallest share of a parallel copy worth a goroutine:
// 16 pages, whose first-touch faults cost more than starting it.
const copyShare = 64 << 10

// copyParallel copies src into dst (of the same length) in shares of at
// least copyShare bytes, one goroutine each, at most GOMAXPROCS. A copy
// into memory fresh from the operating system is bound by its page faults
// (about 2 us a page on the H100 machine: a 0.94 MB result cost 0.4 ms
// more than one into reused memory, docs/analytics.md run 24), and those
// are taken in parallel.
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
