package ef

import "encoding/binary"

// bitWriter appends an LSB-first bit stream to a byte slice.
type bitWriter struct {
	buf []byte
	acc uint64 // pending bits, the oldest in bit 0
	n   uint   // number of pending bits, always < 32 between calls
}

// write appends the nb low bits of v; nb <= 32 and v < 1<<nb.
func (w *bitWriter) write(v uint64, nb uint) {
	w.acc |= v << w.n
	w.n += nb
	if w.n >= 32 {
		w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(w.acc))
		w.acc >>= 32
		w.n -= 32
	}
}

// unary appends z zero bits and a one bit.
func (w *bitWriter) unary(z uint64) {
	for ; z >= 31; z -= 31 {
		w.write(0, 31)
	}
	w.write(1<<z, uint(z)+1)
}

// finish pads the stream to a whole byte and returns the buffer.
func (w *bitWriter) finish() []byte {
	for w.n > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.n -= min(w.n, 8)
	}
	return w.buf
}

// window returns the bits of src starting at bit p in the low bits of the
// result: 64-p%8 valid bits, zeros above them. Bits past the end of src read
// as zero, and no byte past the end is touched.
func window(src []byte, p uint) uint64 {
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
