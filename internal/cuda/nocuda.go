//go:build !cuda

package cuda

import (
	"io/fs"
	"time"
)

// This file is the API of the cuda build without CUDA: Open fails with
// ErrNoCUDA, so no other method is ever reached with a device.

// Device is a GPU.
type Device struct{}

// Open fails with ErrNoCUDA in a build without the cuda tag.
func Open(opts Options) (*Device, error) { return nil, ErrNoCUDA }

// Do fails with ErrNoCUDA.
func (d *Device) Do(f func() error) error { return ErrNoCUDA }

// DoShared fails with ErrNoCUDA.
func (d *Device) DoShared(f func() error) error { return ErrNoCUDA }

// Sync fails with ErrNoCUDA.
func (d *Device) Sync() error { return ErrNoCUDA }

// Timed fails with ErrNoCUDA.
func (d *Device) Timed(launches func() error) (time.Duration, error) { return 0, ErrNoCUDA }

// Close does nothing.
func (d *Device) Close() error { return nil }

// Info describes the device.
func (d *Device) Info() Info { return Info{} }

// Used is the number of bytes allocated on the device.
func (d *Device) Used() int64 { return 0 }

// Alloc fails with ErrNoCUDA.
func (d *Device) Alloc(size int64) (*Buffer, error) { return nil, ErrNoCUDA }

// Load fails with ErrNoCUDA.
func (d *Device) Load(fsys fs.FS, name string, kernels []string) (*Module, error) {
	return nil, ErrNoCUDA
}

// Buffer is a block of device memory.
type Buffer struct{}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() int64 { return 0 }

// Ptr is the buffer's device address.
func (b *Buffer) Ptr() uint64 { return 0 }

// Device is the device the buffer belongs to.
func (b *Buffer) Device() *Device { return nil }

// Free does nothing.
func (b *Buffer) Free() error { return nil }

// WriteBytes fails with ErrNoCUDA.
func (b *Buffer) WriteBytes(src []byte) error { return ErrNoCUDA }

// Uint32At fails with ErrNoCUDA.
func (b *Buffer) Uint32At(i int) (uint32, error) { return 0, ErrNoCUDA }

// Fill32 fails with ErrNoCUDA.
func (b *Buffer) Fill32(v uint32) error { return ErrNoCUDA }

// Write fails with ErrNoCUDA.
func Write[T uint32 | uint64](b *Buffer, src []T) error { return ErrNoCUDA }

// Read fails with ErrNoCUDA.
func Read[T uint32 | uint64](b *Buffer, dst []T) error { return ErrNoCUDA }

// CopyDevice fails with ErrNoCUDA.
func CopyDevice(dst, src *Buffer, n int64) error { return ErrNoCUDA }

// Module is a loaded PTX module's kernels.
type Module struct{}

// From says where the module was loaded from.
func (m *Module) From() string { return "" }

// Has reports whether the module has the named kernel.
func (m *Module) Has(kernel string) bool { return false }

// Launch fails with ErrNoCUDA.
func (m *Module) Launch(s Stream, kernel string, grid, block int, args ...uint64) error {
	return ErrNoCUDA
}

// Stream is a queue of work on the device.
type Stream struct{}

// NewStream fails with ErrNoCUDA.
func NewStream() (Stream, error) { return Stream{}, ErrNoCUDA }

// Upload fails with ErrNoCUDA.
func (s Stream) Upload(dst uint64, src []byte) error { return ErrNoCUDA }

// Memset32 fails with ErrNoCUDA.
func (s Stream) Memset32(dst uint64, v uint32, n int64) error { return ErrNoCUDA }

// Download fails with ErrNoCUDA.
func (s Stream) Download(dst []byte, src uint64) error { return ErrNoCUDA }

// Synchronize fails with ErrNoCUDA.
func (s Stream) Synchronize() error { return ErrNoCUDA }

// Event marks a point in a stream's work.
type Event struct{}

// NewEvent fails with ErrNoCUDA.
func NewEvent() (Event, error) { return Event{}, ErrNoCUDA }

// Record fails with ErrNoCUDA.
func (e Event) Record(s Stream) error { return ErrNoCUDA }

// Elapsed fails with ErrNoCUDA.
func (e Event) Elapsed(end Event) (time.Duration, error) { return 0, ErrNoCUDA }

// Graph records launches and memsets and queues them as one CUDA graph.
type Graph struct{}

// NewGraph returns an empty Graph.
func NewGraph() *Graph { return &Graph{} }

// Launch fails with ErrNoCUDA.
func (g *Graph) Launch(m *Module, kernel string, grid, block int, args ...uint64) error {
	return ErrNoCUDA
}

// Memset32 fails with ErrNoCUDA.
func (g *Graph) Memset32(dst uint64, v uint32, n int64) error { return ErrNoCUDA }

// Len is 0.
func (g *Graph) Len() int { return 0 }

// Flush fails with ErrNoCUDA.
func (g *Graph) Flush(s Stream) error { return ErrNoCUDA }

// Reset does nothing.
func (g *Graph) Reset() {}

// Broken is nil.
func (g *Graph) Broken() error { return nil }

// Close does nothing.
func (g *Graph) Close() error { return nil }

// HostBuffer is page-locked host memory.
type HostBuffer struct{}

// AllocHost fails with ErrNoCUDA.
func (d *Device) AllocHost(n int64) (*HostBuffer, error) { return nil, ErrNoCUDA }

// Bytes is the buffer's memory.
func (h *HostBuffer) Bytes() []byte { return nil }

// Free does nothing.
func (h *HostBuffer) Free() error { return nil }
