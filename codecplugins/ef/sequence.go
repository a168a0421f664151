package ef

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/gpusearch/gpusearch/codecplugins/internal/bitio"
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
func writeSeq(w *bitio.Writer, v []uint32, l uint) {
	mask := uint64(1)<<l - 1
	var s uint64
	for _, x := range v {
		s += uint64(x)
		w.Write(s&mask, l)
	}
	s = 0
	var h uint64
	for _, x := range v {
		s += uint64(x)
		w.Unary(s>>l - h)
		h = s >> l
	}
}

// readSeq decodes len(dst) d-gaps from the Elias-Fano sequence with low
// width l starting at bit p of s. It returns the bit position after the
// sequence, or a reason and the bit position where decoding failed: the
// upper bits run past the end of s, or a gap does not fit in 32 bits. On
// failure dst holds garbage.
func readSeq(dst []uint32, s []byte, p, l uint) (end uint, reason string) {
	mask := uint64(1)<<l - 1
	hp := p + uint(len(dst))*l // first upper bit
	limit := 8 * uint(len(s))
	// lows holds the next have low bits, from bit lp on; highs holds the
	// upper bits from bit q on, the ones already used cleared.
	lows, have, lp := uint64(0), uint(0), p
	highs, q := bitio.Window(s, hp), hp
	var prev, bad uint64
	pos := hp
	for i := range dst {
		if have < l {
			if j := lp >> 3; j+8 <= uint(len(s)) {
				lows = binary.LittleEndian.Uint64(s[j:]) >> (lp & 7)
			} else {
				lows = bitio.Window(s, lp)
			}
			have = 64 - lp&7
		}
		for highs == 0 {
			q = q&^7 + 64 // the byte-aligned position after the valid bits
			if q >= limit {
				return limit, "upper bits truncated"
			}
			if j := q >> 3; j+8 <= uint(len(s)) {
				highs = binary.LittleEndian.Uint64(s[j:])
			} else {
				highs = bitio.Window(s, q)
			}
		}
		pos = q + uint(bits.TrailingZeros64(highs))
		highs &= highs - 1
		x := uint64(pos-hp-uint(i))<<l | lows&mask
		lows >>= l
		have -= l
		lp += l
		d := x - prev // wraps to a huge value when x < prev
		bad |= d
		dst[i] = uint32(d)
		prev = x
	}
	if bad > math.MaxUint32 {
		return hp, "gap out of range"
	}
	return pos + 1, ""
}
