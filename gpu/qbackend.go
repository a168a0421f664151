package gpu

import (
	"time"
	"unsafe"
)

// queryKernels are the kernels of kernels/query.cu.
var queryKernels = []string{
	"and_select", "tile_scan", "and_scatter_blocks", "and_intersect", "and_scatter_survivors", "and_score",
	"and_scan", "or_score", "wave_rows", "or_span_wave", "q_init", "topk_hist_keys", "topk_hist_dense", "topk_hist_wave", "topk_pick", "topk_compact_keys",
	"topk_compact_dense", "topk_compact_wave", "topk_finish", "topk_tree_build", "topk_tree_select", "isect_seg", "isect_hash", "isect_bitmap", "isect_count", "isect_scatter",
}

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

// stream queues work on the device; the work runs in order.
type stream interface {
	// upload copies src to p before the work queued after it, so that a
	// launch sequence's small tables travel in the same run as its
	// launches (a separate backend.upload holds the whole device).
	upload(p devPtr, src []byte) error
	memset32(p devPtr, v uint32, n int64) error
	launch(kernel string, grid, block int, args ...uint64) error
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
