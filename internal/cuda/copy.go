package cuda

import (
	"runtime"
	"sync"
)

// copyShare is the smallest share of a parallel copy worth a goroutine.
// Smaller shares spread the page faults of a copy into memory fresh from
// the operating system (about 2 us a page on the H100 machine), but cost
// more than they save on reused memory, the steady state of a process that
// runs many tasks: 64 KiB shares made the 0.94 MB word counts 0.08 ms
// slower there (docs/analytics.md).
const copyShare = 1 << 20

// copyParallel copies src into dst (of the same length) in shares of at
// least copyShare bytes, one goroutine each, at most GOMAXPROCS: a copy of
// tens of megabytes is bound by one core's memory bandwidth and page
// faults, and scales with cores.
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
