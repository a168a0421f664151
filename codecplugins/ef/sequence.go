package ef

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// lowWidth returns the low-bit width for m values summing to u: the
// smallest l with u>>l <= 2m, which minimises seqBits(u, m, l).
func lowWidth(u uint64, m int) uint {
	two := 2 * uint64(m)
	l := max(bits.Len64(u)-bits.Len64(two), 0)
	if u>>l > two {
		l++
	}
	return uint(l)
}

// seqBits is the size in bits of an Elias-Fano sequence of m values up to
// u with low width l.
func seqBits(u uint64, m int, l uint) uint64 {
	return uint64(m)*uint64(l+1) + u>>l
}

// writeSeq appends the Elias-Fano sequence of v's prefix sums with low
// width l.
func writeSeq(w *bitWriter, v []uint32, l uint) {
	mask := uint64(1)<<l - 1
	var s uint64
	for _, x := range v {
		s += uint64(x)
		w.write(s&mask, l)
	}
	s = 0
	var h uint64
	for _, x := range v {
		s += uint64(x)
		w.unary(s>>l - h)
		h = s >> l
	}
}

// readSeq decodes len(dst) d-gaps from the Elias-Fano sequence with low
// width l starting at bit p of s. It returns the bit position after the
// sequence, or a reason and the bit position where decoding failed: the
// upper bits run past the end of s, or a gap does not fit in 32 bits.
func readSeq(dst []uint32, s []byte, p, l uint) (end uint, reason string) {
	m := uint(len(dst))
	mask := uint64(1)<<l - 1
	hp := p + m*l // first upper bit
	limit := 8 * uint(len(s))
	q := hp // bit position of w's bit 0
	w := window(s, q)
	var prev uint64
	pos := hp
	for i := range m {
		for w == 0 {
			q = q&^7 + 64 // the byte-aligned position after w's valid bits
			if q >= limit {
				return limit, "upper bits truncated"
			}
			if j := q >> 3; j+8 <= uint(len(s)) {
				w = binary.LittleEndian.Uint64(s[j:])
			} else {
				w = window(s, q)
			}
		}
		pos = q + uint(bits.TrailingZeros64(w))
		w &= w - 1
		lp := p + i*l
		var low uint64
		if j := lp >> 3; j+8 <= uint(len(s)) {
			low = binary.LittleEndian.Uint64(s[j:]) >> (lp & 7) & mask
		} else {
			low = window(s, lp) & mask
		}
		x := uint64(pos-hp-i)<<l | low
		d := x - prev // wraps to a huge value when x < prev
		if d > math.MaxUint32 {
			return pos, "gap out of range"
		}
		dst[i] = uint32(d)
		prev = x
	}
	return pos + 1, ""
}
