// Package hugemem allocates large, read-mostly tables outside the Go
// heap, on transparent huge pages where the kernel gives them. A query
// probes an index's postings and tables at random: on 4 KiB pages nearly
// every probe of a table larger than the TLB's reach (a few MiB) pays a
// page walk on top of its cache miss; on 2 MiB pages the same tables fit
// in a few dozen TLB entries.
//
// The memory is the caller's to free, with Free; the Go collector does not
// scan it, so the element types must hold no pointers.
package hugemem

import (
	"fmt"
	"unsafe"
)

// PageSize is the huge page size: allocations start on a multiple of it
// and take whole multiples of it.
const PageSize = 2 << 20

// span is the bytes an allocation of n values of T takes: n*size rounded
// up to PageSize.
func span[T any](n int) (uintptr, error) {
	var z T
	size := unsafe.Sizeof(z)
	if n < 0 || size != 0 && uintptr(n) > (^uintptr(0)-PageSize)/size {
		return 0, fmt.Errorf("hugemem: %d values of %d bytes: too large", n, size)
	}
	return (uintptr(n)*size + PageSize - 1) &^ (PageSize - 1), nil
}

// Copy returns a copy of v in memory from Make: nil for an empty v.
func Copy[T any](v []T) ([]T, error) {
	out, err := Make[T](len(v))
	if err != nil {
		return nil, err
	}
	copy(out, v)
	return out, nil
}
