package index

import (
	"errors"
	"fmt"
	"runtime/debug"
	"unsafe"
)

// ErrFault is wrapped, beside ErrCorrupt, by the error Guard returns when
// reading a mapped file faulted: the file shrank (or was replaced in
// place) on disk while the index was open, and the pages read are gone.
var ErrFault = errors.New("file changed on disk while open")

// Guard runs f, which reads the index's mapped files, on the calling
// goroutine and turns a fault reading them into an error naming the file
// (wrapping ErrFault and ErrCorrupt) where it would kill the process with
// SIGBUS. The setting that makes faults recoverable is the goroutine's
// (runtime/debug.SetPanicOnFault), so every goroutine that reads the
// index, such as a query worker, calls Guard itself. Panics other than
// faults go on.
func (ix *Index) Guard(f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		fault, ok := r.(interface{ Addr() uintptr }) // a runtime.Error from a fault
		if !ok {
			panic(r)
		}
		err = ix.faultError(fault.Addr())
	}()
	return f()
}

// faultError describes a fault at addr, naming the mapped file it lies in.
func (ix *Index) faultError(addr uintptr) error {
	if name, off, size, ok := ix.mappedAt(addr); ok {
		return fmt.Errorf("index: %s: %w: %w: reading byte %d of the %d mapped faulted (the file shrank or was replaced in place)",
			name, ErrCorrupt, ErrFault, off, size)
	}
	return fmt.Errorf("index: %w: %w: reading mapped memory at %#x faulted", ErrCorrupt, ErrFault, addr)
}

// mappedAt finds the mapped file, of the index or of its segments, that
// holds addr, and the offset there.
func (ix *Index) mappedAt(addr uintptr) (name string, off uintptr, size int, ok bool) {
	if ix.seg != nil {
		for _, p := range ix.seg.parts {
			if name, off, size, ok = p.mappedAt(addr); ok {
				return name, off, size, ok
			}
		}
	}
	for name, b := range ix.maps {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if addr >= start && addr-start < uintptr(len(b)) {
			return name, addr - start, len(b), true
		}
	}
	return "", 0, 0, false
}
