//go:build !cuda

package gpu

import (
	"time"

	"github.com/gpusearch/gpusearch/index"
)

// Device is a GPU. This build has no CUDA support: OpenDevice always fails
// with ErrNoCUDA, so no method is ever reached with a device.
type Device struct{}

// OpenDevice fails with ErrNoCUDA in a build without the cuda tag.
func OpenDevice(opts DeviceOptions) (*Device, error) { return nil, ErrNoCUDA }

// Close does nothing.
func (d *Device) Close() error { return nil }

// Info describes the device.
func (d *Device) Info() DeviceInfo { return DeviceInfo{} }

// PTXSource says where the kernels were loaded from.
func (d *Device) PTXSource() string { return "" }

// Used is the number of bytes allocated on the device.
func (d *Device) Used() int64 { return 0 }

// Alloc fails with ErrNoCUDA.
func (d *Device) Alloc(size int64) (*Buffer, error) { return nil, ErrNoCUDA }

// UploadColumn fails with ErrNoCUDA.
func (d *Device) UploadColumn(h *HostColumn) (*Column, error) { return nil, ErrNoCUDA }

// Upload fails with ErrNoCUDA.
func (d *Device) Upload(ix *index.Index) (*Resident, error) { return nil, ErrNoCUDA }

// Decode fails with ErrNoCUDA.
func (d *Device) Decode(j DecodeJob) error { return ErrNoCUDA }

// TimeDecodes fails with ErrNoCUDA.
func (d *Device) TimeDecodes(jobs []DecodeJob) (time.Duration, error) { return 0, ErrNoCUDA }

// TimeCopy fails with ErrNoCUDA.
func (d *Device) TimeCopy(dst, src *Buffer, n int64, kernel bool) (time.Duration, error) {
	return 0, ErrNoCUDA
}

// Buffer is a block of device memory.
type Buffer struct{}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() int64 { return 0 }

// Free does nothing.
func (b *Buffer) Free() error { return nil }

// WriteBytes fails with ErrNoCUDA.
func (b *Buffer) WriteBytes(src []byte) error { return ErrNoCUDA }

// WriteUint32s fails with ErrNoCUDA.
func (b *Buffer) WriteUint32s(src []uint32) error { return ErrNoCUDA }

// WriteUint64s fails with ErrNoCUDA.
func (b *Buffer) WriteUint64s(src []uint64) error { return ErrNoCUDA }

// ReadUint32s fails with ErrNoCUDA.
func (b *Buffer) ReadUint32s(dst []uint32) error { return ErrNoCUDA }

// Fill32 fails with ErrNoCUDA.
func (b *Buffer) Fill32(v uint32) error { return ErrNoCUDA }

// Column is an encoded column resident on a device.
type Column struct{}

// Free does nothing.
func (c *Column) Free() error { return nil }

// Codec is the column's codec name.
func (c *Column) Codec() string { return "" }

// BlockSize is the column's block size, the row stride of decode output.
func (c *Column) BlockSize() int { return 0 }

// NumBlocks is the number of blocks in the column.
func (c *Column) NumBlocks() int { return 0 }

// Values is the number of values in the column.
func (c *Column) Values() int { return 0 }

// DataBytes is the size of the column's encoded blocks.
func (c *Column) DataBytes() int64 { return 0 }
