//go:build cuda

package cuda

/*
#include <cuda.h>
*/
import "C"

import (
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// Reads of at least stagedMin bytes go through the device's page-locked
// stage, at most stageMax bytes at a time.
const (
	stagedMin = 256 << 10
	stageMax  = 64 << 20
)

// hostStage is page-locked host memory that large reads from the device
// pass through. The copy engine fills it at the link's speed and the host's
// cores copy it out in parallel; a copy straight into Go's pageable memory
// goes through the driver's own staging on one core, page faults and all.
// It belongs to a Device and is used under exec held alone.
type hostStage struct {
	p    unsafe.Pointer
	size int64
}

// grow makes the stage at least n bytes.
func (s *hostStage) grow(n int64) error {
	if s.size >= n {
		return nil
	}
	if err := s.free(); err != nil {
		return err
	}
	var p unsafe.Pointer
	if r := C.cuMemAllocHost(&p, C.size_t(n)); r != C.CUDA_SUCCESS {
		return fmt.Errorf("gpu: page-locked host buffer of %d bytes: CUDA error %d", n, int(r))
	}
	s.p, s.size = p, n
	return nil
}

// free releases the stage; a stage never grown has nothing to release.
func (s *hostStage) free() error {
	if s.p == nil {
		return nil
	}
	err := cu.MemFreeHost(s.p)
	s.p, s.size = nil, 0
	return err
}

// readInto copies len(dst) bytes of device memory from src into dst, through
// the stage when the read is large and the stage can be had (a read never
// fails for want of page-locked memory: it copies directly). It runs
// inside Do.
func (d *Device) readInto(dst []byte, src cu.DevicePtr) error {
	n := int64(len(dst))
	if n < stagedMin || d.stage.grow(min(n, stageMax)) != nil {
		return cu.MemcpyDtoH(unsafe.Pointer(&dst[0]), src, n)
	}
	stage := unsafe.Slice((*byte)(d.stage.p), d.stage.size)
	for off := int64(0); off < n; off += d.stage.size {
		k := min(n-off, d.stage.size)
		if err := cu.MemcpyDtoH(d.stage.p, src+cu.DevicePtr(off), k); err != nil {
			return err
		}
		copyParallel(dst[off:off+k], stage[:k])
	}
	return nil
}

// HostBuffer is page-locked host memory: copies from it to the device run
// at the link's speed and asynchronously, where a copy from Go's pageable
// memory is staged by the driver first.
type HostBuffer struct {
	d *Device
	p unsafe.Pointer
	n int64
}

// AllocHost allocates n bytes of page-locked host memory, freed by its
// Free or with the device.
func (d *Device) AllocHost(n int64) (*HostBuffer, error) {
	if n <= 0 {
		return nil, fmt.Errorf("gpu: page-locked host buffer of %d bytes", n)
	}
	h := &HostBuffer{d: d, n: n}
	err := d.Do(func() error {
		if r := C.cuMemAllocHost(&h.p, C.size_t(n)); r != C.CUDA_SUCCESS {
			return fmt.Errorf("gpu: page-locked host buffer of %d bytes: CUDA error %d", n, int(r))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Bytes is the buffer's memory; it is valid until Free.
func (h *HostBuffer) Bytes() []byte { return unsafe.Slice((*byte)(h.p), h.n) }

// Free releases the buffer; a second call does nothing.
func (h *HostBuffer) Free() error {
	if h.p == nil {
		return nil
	}
	p := h.p
	h.p = nil
	return h.d.Do(func() error { return cu.MemFreeHost(p) })
}
