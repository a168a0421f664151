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

// layout is where a full block's slots lie: in the 4-way vertical layout
// of package bitpack (newpfor, optpfor) or in its horizontal layout, value
// i at bit i*b (newpfor-hor, optpfor-hor; the first paper's -Hor codecs).
// Both take 16*b bytes; a partial block is always horizontal.
type layout bool

const (
	vertical   layout = false
	horizontal layout = true
)

// appendBlock encodes v with slot width b, minWidth(maxbits) <= b <= 32,
// its slots in layout lay.
func appendBlock(dst []byte, v []uint32, b int, lay layout) []byte {
	if len(v) == 0 {
		return dst
	}
	var buf [2 * blockLen]uint32
	exc := exceptions(&buf, v, b)
	if len(exc) == 0 {
		dst = append(dst, byte(b))
	} else {
		dst = append(dst, byte(b)|hasExceptions, byte(len(exc)/2))
	}
	if len(v) == blockLen && lay == vertical {
		dst = bitpack.AppendVertical(dst, (*[blockLen]uint32)(v), b)
	} else {
		dst = bitpack.AppendHorizontal(dst, v, b)
	}
	return s16Append(dst, exc)
}

// blockLenAt returns the encoded size of v at slot width b.
func blockLenAt(v []uint32, b int) int {
	var buf [2 * blockLen]uint32
	exc := exceptions(&buf, v, b)
	if len(exc) == 0 {
		return 1 + slotLen(len(v), b)
	}
	return 2 + slotLen(len(v), b) + s16Len(exc)
}

// hasExceptions is the header bit that says an exception count follows.
const hasExceptions = 0x80

// decodeBlock decodes a block of n values, its slots in layout lay, for
// the codec called name.
func decodeBlock(name string, dst []uint32, src []byte, n int, lay layout) error {
	if n < 0 || n > blockLen {
		return codecplugins.Corrupt(name, 0, "value count out of range")
	}
	if n == 0 {
		return nil
	}
	if len(src) == 0 {
		return codecplugins.Corrupt(name, 0, "truncated header")
	}
	b, e, h := int(src[0]), 0, 1 // width, exceptions, header bytes
	if b&hasExceptions != 0 {
		if len(src) < 2 {
			return codecplugins.Corrupt(name, 1, "truncated header")
		}
		b, e, h = b&^hasExceptions, int(src[1]), 2
		if e == 0 {
			return codecplugins.Corrupt(name, 1, "exception flag with no exceptions")
		}
	}
	if b > bitpack.MaxWidth {
		return codecplugins.Corrupt(name, 0, "bit width above 32")
	}
	if e > n {
		return codecplugins.Corrupt(name, 1, "more exceptions than values")
	}
	slots := src[h:]
	sl := slotLen(n, b)
	if len(slots) < sl {
		return codecplugins.Corrupt(name, len(src), "truncated slots")
	}
	if e == 0 {
		unpackSlots(dst, slots, n, b, lay)
		return nil
	}
	if b == bitpack.MaxWidth {
		return codecplugins.Corrupt(name, 1, "exceptions in a 32-bit block")
	}
	// Decode and check the exceptions before writing to dst. simple16 may
	// write up to s16MaxFields-1 values past the 2e wanted, hence the slack;
	// a small buffer serves the usual few exceptions without zeroing a
	// large one.
	if 2*e+s16MaxFields <= smallBuf {
		var buf [smallBuf]uint32
		return patched(name, dst, slots, n, b, e, sl, buf[:], lay)
	}
	var buf [2*blockLen + s16MaxFields]uint32
	return patched(name, dst, slots, n, b, e, sl, buf[:], lay)
}

// smallBuf is the size of the exception buffer for blocks with few
// exceptions.
const smallBuf = 64

// patched decodes a block with e > 0 exceptions from body, the block after
// its header; buf holds at least 2e+s16MaxFields values.
func patched(name string, dst []uint32, body []byte, n, b, e, sl int, buf []uint32, lay layout) error {
	const h = 2 // header bytes, for error offsets
	if !s16Decode(buf, 2*e, body[sl:]) {
		return codecplugins.Corrupt(name, h+len(body), "truncated exceptions")
	}
	gaps, highs := buf[:e], buf[e:2*e]
	// Turn gaps into positions and check everything first.
	limit := uint32(uint64(1)<<(32-b) - 2) // largest high part minus one that fits
	pos := -1
	for i, g := range gaps {
		pos += int(g) + 1
		if pos >= n {
			return codecplugins.Corrupt(name, h+sl, "exception position out of range")
		}
		gaps[i] = uint32(pos)
		if highs[i] > limit {
			return codecplugins.Corrupt(name, h+sl, "exception overflows 32 bits")
		}
	}
	unpackSlots(dst, body, n, b, lay)
	dst = dst[:n]
	for i, p := range gaps {
		dst[p] |= (highs[i] + 1) << b
	}
	return nil
}

// unpackSlots decodes the n b-bit slots at the start of slots, in layout
// lay, into dst.
func unpackSlots(dst []uint32, slots []byte, n, b int, lay layout) {
	switch {
	case n == blockLen && lay == vertical:
		bitpack.UnpackVertical((*[blockLen]uint32)(dst), slots, b)
	case n == blockLen:
		bitpack.UnpackHorizontalBlock((*[blockLen]uint32)(dst), slots, b)
	default:
		bitpack.UnpackHorizontal(dst[:n], slots, b)
	}
}
