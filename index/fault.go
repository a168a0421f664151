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
	for name, b := range ix.maps {
		start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if addr >= start && addr-start < uintptr(len(b)) {
			return fmt.Errorf("index: %s: %w: %w: reading byte %d of the %d mapped faulted (the file shrank or was replaced in place)",
				name, ErrCorrupt, ErrFault, addr-start, len(b))
		}
	}
	return fmt.Errorf("index: %w: %w: reading mapped memory at %#x faulted", ErrCorrupt, ErrFault, addr)
}
