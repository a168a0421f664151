package hugemem

import (
	"bytes"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Make returns n zeroed values of T (len and cap n) in an anonymous
// mapping of its own that starts on a PageSize boundary, advised as huge
// pages (MADV_HUGEPAGE; where the kernel has transparent huge pages off,
// the memory is plain pages and works the same). n == 0 gives nil. T must
// hold no pointers. Free releases it.
func Make[T any](n int) ([]T, error) {
	size, err := span[T](n)
	if err != nil || size == 0 {
		return nil, err
	}
	// A page more than needed, then the unaligned head and the tail cut
	// off: the kernel backs only an aligned 2 MiB range with a huge page.
	p, err := unix.MmapPtr(-1, 0, nil, size+PageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("hugemem: map %d bytes: %w", size, err)
	}
	head := (PageSize - uintptr(p)%PageSize) % PageSize
	if head > 0 {
		_ = unix.MunmapPtr(p, head)
	}
	start := unsafe.Add(p, head)
	if tail := PageSize - head; tail > 0 {
		_ = unix.MunmapPtr(unsafe.Add(start, size), tail)
	}
	// Best effort: without transparent huge pages the advice fails and
	// the memory still serves.
	_ = unix.Madvise(unsafe.Slice((*byte)(start), size), unix.MADV_HUGEPAGE)
	return unsafe.Slice((*T)(start), n), nil
}

// Free releases values from Make or Copy: v must be the slice they
// returned (or one with the same first element and capacity). Freeing nil
// does nothing. The memory must not be used after.
func Free[T any](v []T) error {
	if cap(v) == 0 {
		return nil
	}
	size, err := span[T](cap(v))
	if err != nil {
		return err
	}
	if err := unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(v[:1])), size); err != nil {
		return fmt.Errorf("hugemem: unmap %d bytes: %w", size, err)
	}
	return nil
}

// Total is the machine's physical memory in bytes, 0 where unknown.
func Total() uint64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
}

// Available reports whether the kernel gives transparent huge pages to
// memory advised so: its setting is "always" or "madvise", not "never"
// (or absent, a kernel without them).
func Available() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && !bytes.Contains(b, []byte("[never]"))
}
