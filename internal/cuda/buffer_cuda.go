//go:build cuda

package cuda

import (
	"errors"
	"fmt"
	"unsafe"

	"gorgonia.org/cu"
)

// Buffer is a block of device memory.
type Buffer struct {
	d    *Device
	ptr  cu.DevicePtr
	size int64
}

// Alloc allocates size bytes (rounded up to a multiple of 16) of device
// memory. It fails with an error wrapping ErrOutOfMemory past the budget or
// when the device is full.
func (d *Device) Alloc(size int64) (*Buffer, error) {
	size = max(16, (size+15)&^15)
	d.mu.Lock()
	if d.used+size > d.info.BudgetBytes {
		used := d.used
		d.mu.Unlock()
		return nil, fmt.Errorf("%w: %d bytes requested, %d of the %d-byte budget in use", ErrOutOfMemory, size, used, d.info.BudgetBytes)
	}
	d.used += size
	d.mu.Unlock()
	var p cu.DevicePtr
	err := d.Do(func() (err error) {
		p, err = cu.MemAlloc(size)
		return err
	})
	if err != nil {
		d.release(size)
		if errors.Is(err, cu.OutOfMemory) {
			return nil, fmt.Errorf("%w: %d bytes requested: %v", ErrOutOfMemory, size, err)
		}
		return nil, fmt.Errorf("gpu: alloc %d bytes: %w", size, err)
	}
	return &Buffer{d: d, ptr: p, size: size}, nil
}

func (d *Device) release(size int64) {
	d.mu.Lock()
	d.used -= size
	d.mu.Unlock()
}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() int64 { return b.size }

// Ptr is the buffer's device address, as kernels take it.
func (b *Buffer) Ptr() uint64 { return uint64(b.ptr) }

// Device is the device the buffer belongs to.
func (b *Buffer) Device() *Device { return b.d }

// Free releases the buffer; freeing a nil or freed buffer does nothing.
func (b *Buffer) Free() error {
	if b == nil || b.ptr == 0 {
		return nil
	}
	err := b.d.Do(func() error { return cu.MemFree(b.ptr) })
	b.d.release(b.size)
	b.ptr = 0
	if errors.Is(err, ErrClosed) {
		return nil // the context is gone and its memory with it
	}
	return err
}

func (b *Buffer) write(p unsafe.Pointer, n int64) error {
	if n > b.size {
		return fmt.Errorf("gpu: write of %d bytes into a %d-byte buffer", n, b.size)
	}
	if n == 0 {
		return nil
	}
	return b.d.Do(func() error { return cu.MemcpyHtoD(b.ptr, p, n) })
}

// WriteBytes copies src to the start of the buffer.
func (b *Buffer) WriteBytes(src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return b.write(unsafe.Pointer(&src[0]), int64(len(src)))
}

// Write copies src to the start of the buffer.
func Write[T uint32 | uint64](b *Buffer, src []T) error {
	if len(src) == 0 {
		return nil
	}
	return b.write(unsafe.Pointer(&src[0]), int64(unsafe.Sizeof(src[0]))*int64(len(src)))
}

// Read copies the start of the buffer into dst; a large read passes
// through the device's page-locked stage.
func Read[T uint32 | uint64](b *Buffer, dst []T) error {
	n := int64(unsafe.Sizeof(T(0))) * int64(len(dst))
	if n > b.size {
		return fmt.Errorf("gpu: read of %d bytes from a %d-byte buffer", n, b.size)
	}
	if n == 0 {
		return nil
	}
	host := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), n)
	return b.d.Do(func() error { return b.d.readInto(host, b.ptr) })
}

// Uint32At reads the i-th uint32 of the buffer.
func (b *Buffer) Uint32At(i int) (uint32, error) {
	if int64(4*i+4) > b.size {
		return 0, fmt.Errorf("gpu: read of uint32 %d from a %d-byte buffer", i, b.size)
	}
	var v uint32
	err := b.d.Do(func() error { return cu.MemcpyDtoH(unsafe.Pointer(&v), b.ptr+cu.DevicePtr(4*i), 4) })
	return v, err
}

// Fill32 sets every 32-bit word of the buffer to v (to poison an output
// before a decode, so that an unwritten value shows).
func (b *Buffer) Fill32(v uint32) error {
	return b.d.Do(func() error { return cu.MemsetD32(b.ptr, v, b.size/4) })
}

// CopyDevice copies n bytes from src to dst on the default stream and
// returns when the copy is queued. It runs inside Do.
func CopyDevice(dst, src *Buffer, n int64) error {
	if n > dst.size || n > src.size || dst.d != src.d {
		return fmt.Errorf("gpu: copy of %d bytes between buffers of %d and %d", n, src.size, dst.size)
	}
	return cu.MemcpyDtoD(dst.ptr, src.ptr, n)
}
