package bitio

import "encoding/binary"

// Writer appends an LSB-first bit stream to a byte slice.
type Writer struct {
	buf []byte
	acc uint64 // pending bits, the oldest in bit 0
	n   uint   // number of pending bits, always < 32 between calls
}

// NewWriter returns a Writer that appends to dst.
func NewWriter(dst []byte) Writer { return Writer{buf: dst} }

// Write appends the nb low bits of v; nb <= 33 and v < 1<<nb.
func (w *Writer) Write(v uint64, nb uint) {
	w.acc |= v << w.n
	w.n += nb
	for w.n >= 32 {
		w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(w.acc))
		w.acc >>= 32
		w.n -= 32
	}
}

// Unary appends z zero bits and a one bit.
func (w *Writer) Unary(z uint64) {
	for ; z >= 31; z -= 31 {
		w.Write(0, 31)
	}
	w.Write(1<<z, uint(z)+1)
}

// Finish pads the stream to a whole byte and returns the buffer.
func (w *Writer) Finish() []byte {
	for w.n > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.n -= min(w.n, 8)
	}
	return w.buf
}

// Window returns the bits of src starting at bit p in the low bits of the
// result: 64-p%8 valid bits (at least 57), zeros above them. Bits past the
// end of src read as zero, and no byte past the end is touched.
func Window(src []byte, p uint) uint64 {
	i := p >> 3
	if i+8 <= uint(len(src)) {
		return binary.LittleEndian.Uint64(src[i:]) >> (p & 7)
	}
	var w uint64
	for j := uint(0); j < 8 && i+j < uint(len(src)); j++ {
		w |= uint64(src[i+j]) << (8 * j)
	}
	return w >> (p & 7)
}
