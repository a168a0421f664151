package pfor

import (
	"math/bits"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
)

// blockLen is the number of values in a full block.
const blockLen = bitpack.BlockLen

// widthHistogram returns how many values of v need exactly L bits, for each
// L in 0..32, and the width of the largest value.
func widthHistogram(v []uint32) (h [bitpack.MaxWidth + 1]int, maxBits int) {
	for _, x := range v {
		h[bits.Len32(x)]++
	}
	for maxBits = bitpack.MaxWidth; maxBits > 0 && h[maxBits] == 0; maxBits-- {
	}
	return h, maxBits
}

// minWidth is the smallest slot width whose exceptions simple16 can hold.
func minWidth(maxBits int) int { return max(0, maxBits-28) }

// slotLen is the size in bytes of the slots of n values of width b.
func slotLen(n, b int) int {
	if n == blockLen {
		return bitpack.VerticalLen(b)
	}
	return bitpack.HorizontalLen(n, b)
}

// exceptions writes into buf the simple16 input of v at width b (position
// gaps, then high parts minus one) and returns it.
func exceptions(buf *[2 * blockLen]uint32, v []uint32, b int) []uint32 {
	e, last := 0, -1
	for i, x := range v {
		if uint64(x)>>b != 0 {
			buf[e] = uint32(i - last - 1)
			last = i
			e++
		}
	}
	k := e
	for _, x := range v {
		if hi := uint64(x) >> b; hi != 0 {
			buf[k] = uint32(hi - 1)
			k++
		}
	}
	return buf[:k]
}

// appendBlock encodes v with slot width b, minWidth(maxbits) <= b <= 32.
func appendBlock(dst []byte, v []uint32, b int) []byte {
	if len(v) == 0 {
		return dst
	}
	var buf [2 * blockLen]uint32
	exc := exceptions(&buf, v, b)
	dst = append(dst, byte(b), byte(len(exc)/2))
	if len(v) == blockLen {
		dst = bitpack.AppendVertical(dst, (*[blockLen]uint32)(v), b)
	} else {
		dst = bitpack.AppendHorizontal(dst, v, b)
	}
	return s16Append(dst, exc)
}

// blockLenAt returns the encoded size of v at slot width b.
func blockLenAt(v []uint32, b int) int {
	var buf [2 * blockLen]uint32
	return 2 + slotLen(len(v), b) + s16Len(exceptions(&buf, v, b))
}

// decodeBlock decodes a block of n values for the codec called name.
func decodeBlock(name string, dst []uint32, src []byte, n int) error {
	if n < 0 || n > blockLen {
		return codecplugins.Corrupt(name, 0, "value count out of range")
	}
	if n == 0 {
		return nil
	}
	if len(src) < 2 {
		return codecplugins.Corrupt(name, len(src), "truncated header")
	}
	b, e := int(src[0]), int(src[1])
	if b > bitpack.MaxWidth {
		return codecplugins.Corrupt(name, 0, "bit width above 32")
	}
	if e > n {
		return codecplugins.Corrupt(name, 1, "more exceptions than values")
	}
	slots := src[2:]
	sl := slotLen(n, b)
	if len(slots) < sl {
		return codecplugins.Corrupt(name, len(src), "truncated slots")
	}
	// Decode and check the exceptions before writing to dst.
	var buf [2 * blockLen]uint32
	exc := buf[:2*e]
	if e > 0 {
		if b == bitpack.MaxWidth {
			return codecplugins.Corrupt(name, 1, "exceptions in a 32-bit block")
		}
		if !s16Decode(exc, slots[sl:]) {
			return codecplugins.Corrupt(name, len(src), "truncated exceptions")
		}
		pos := -1
		for i := range e {
			pos += int(exc[i]) + 1
			if pos >= n {
				return codecplugins.Corrupt(name, 2+sl, "exception position out of range")
			}
			exc[i] = uint32(pos)
			if uint64(exc[e+i])+1 > 1<<(32-b)-1 {
				return codecplugins.Corrupt(name, 2+sl, "exception overflows 32 bits")
			}
		}
	}
	if n == blockLen {
		bitpack.UnpackVertical((*[blockLen]uint32)(dst), slots, b)
	} else {
		bitpack.UnpackHorizontal(dst[:n], slots, b)
	}
	for i := range e {
		dst[exc[i]] |= (exc[e+i] + 1) << b
	}
	return nil
}
