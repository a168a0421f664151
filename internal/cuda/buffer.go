package cuda

import "unsafe"

// Upload allocates a buffer and copies src into it.
func Upload[T uint32 | uint64](d *Device, src []T) (*Buffer, error) {
	b, err := d.Alloc(int64(unsafe.Sizeof(T(0))) * int64(len(src)))
	if err != nil {
		return nil, err
	}
	if err := Write(b, src); err != nil {
		b.Free()
		return nil, err
	}
	return b, nil
}

// FreeAll frees every buffer (nil ones included: Free is nil-safe) and
// returns the first error.
func FreeAll(bufs ...*Buffer) error {
	var first error
	for _, b := range bufs {
		if err := b.Free(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// WriteUint32s copies src to the start of the buffer.
func (b *Buffer) WriteUint32s(src []uint32) error { return Write(b, src) }

// WriteUint64s copies src to the start of the buffer.
func (b *Buffer) WriteUint64s(src []uint64) error { return Write(b, src) }

// ReadUint32s copies the start of the buffer into dst.
func (b *Buffer) ReadUint32s(dst []uint32) error { return Read(b, dst) }
