package gpu

import (
	"time"
	"unsafe"
)

//go:generate go run ../internal/kernelgen -cu kernels/query.cu -pkg gpu -list queryKernels -ptr devPtr -o query_kernels.go

// devPtr is an address in device memory.
type devPtr uint64

// backend is the device a query engine drives: the CUDA device in a cuda
// build, and a C++ emulation of the kernels in the CPU tests. Kernels are
// named as in the .cu sources and take 8-byte arguments.
type backend interface {
	// alloc returns size bytes of device memory, 256-byte aligned.
	alloc(size int64) (devPtr, error)
	free(p devPtr) error
	// upload copies src to p, synchronously.
	upload(p devPtr, src []byte) error
	// run gives f lane's stream for one sequence of work. Runs on one lane
	// are serialized; runs on different lanes may overlap on the device.
	run(lane int, f func(s stream) error) error
	// multiprocessors sizes grid-stride launches.
	multiprocessors() int
}

// freeAll frees every non-zero pointer of ptrs on be and returns the first
// error.
func freeAll(be backend, ptrs ...devPtr) error {
	var first error
	for _, p := range ptrs {
		if p == 0 {
			continue
		}
		if err := be.free(p); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// launcher launches kernels by name, each parameter 8 bytes; the
// generated wrappers (query_kernels.go) call it with their kernel's
// parameters in order.
type launcher interface {
	launch(kernel string, grid, block int, args ...uint64) error
}

// stream queues work on the device; the work runs in order.
type stream interface {
	launcher
	// upload copies src to p before the work queued after it, so that a
	// launch sequence's small tables travel in the same run as its
	// launches (a separate backend.upload holds the whole device).
	upload(p devPtr, src []byte) error
	memset32(p devPtr, v uint32, n int64) error
	// download waits for the work queued so far, then copies len(dst)
	// bytes from p.
	download(dst []byte, p devPtr) error
	// mark records a timing event (a no-op unless timing is on).
	mark() error
	// elapsed returns the time between consecutive marks, once a download
	// has waited for them.
	elapsed() ([]time.Duration, error)
}

// bytesOf views a slice of fixed-size numbers as its bytes (the device,
// like the host, is little-endian).
func bytesOf[T uint32 | uint64 | float32](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}
