//go:build unix

package codectest

import (
	"os"
	"slices"
	"sync"

	"golang.org/x/sys/unix"
)

// guardPages is the mapping guarded places its copies in: guardLen bytes
// of readable memory followed by one page without access, mapped once and
// used by one call at a time.
var (
	guardMu  sync.Mutex
	guardMem []byte // nil where the mapping failed
	guardLen int
	guardOne sync.Once
)

// guarded calls f with a copy of src that ends where a page without
// access begins, so that a decoder reading even one byte past src faults
// at once instead of reading whatever lies beyond. Where the pages cannot
// be mapped, or src is longer than the mapping, it falls back to a plain
// copy.
func guarded(src []byte, f func(buf []byte)) {
	guardOne.Do(func() {
		page := os.Getpagesize()
		guardLen = 16 * page
		mem, err := unix.Mmap(-1, 0, guardLen+page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
		if err != nil {
			return
		}
		if unix.Mprotect(mem[guardLen:], unix.PROT_NONE) != nil {
			return
		}
		guardMem = mem
	})
	if guardMem == nil || len(src) > guardLen {
		f(slices.Clone(src))
		return
	}
	guardMu.Lock()
	defer guardMu.Unlock()
	buf := guardMem[guardLen-len(src) : guardLen : guardLen]
	copy(buf, src)
	f(buf)
}
