package pfor

import (
	"math"
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
	b, e, h, err := header(name, src, n)
	if err != nil || n == 0 {
		return err
	}
	slots := src[h:]
	if e == 0 {
		unpackSlots(dst, slots, n, b, lay)
		return nil
	}
	_, err = patchedBlock(name, dst, slots, n, b, e, lay)
	return err
}

// header checks a block of n values and returns its slot width b, its
// exception count e and the length h of its header; the slots follow the
// header, and when e > 0 the exceptions follow the slots. n == 0 is a
// valid empty block.
func header(name string, src []byte, n int) (b, e, h int, err error) {
	if n < 0 || n > blockLen {
		return 0, 0, 0, codecplugins.Corrupt(name, 0, "value count out of range")
	}
	if n == 0 {
		return 0, 0, 0, nil
	}
	if len(src) == 0 {
		return 0, 0, 0, codecplugins.Corrupt(name, 0, "truncated header")
	}
	b, h = int(src[0]), 1
	if b&hasExceptions != 0 {
		if len(src) < 2 {
			return 0, 0, 0, codecplugins.Corrupt(name, 1, "truncated header")
		}
		b, e, h = b&^hasExceptions, int(src[1]), 2
		if e == 0 {
			return 0, 0, 0, codecplugins.Corrupt(name, 1, "exception flag with no exceptions")
		}
	}
	switch {
	case b > bitpack.MaxWidth:
		return 0, 0, 0, codecplugins.Corrupt(name, 0, "bit width above 32")
	case e > n:
		return 0, 0, 0, codecplugins.Corrupt(name, 1, "more exceptions than values")
	case len(src)-h < slotLen(n, b):
		return 0, 0, 0, codecplugins.Corrupt(name, len(src), "truncated slots")
	case e > 0 && b == bitpack.MaxWidth:
		return 0, 0, 0, codecplugins.Corrupt(name, 1, "exceptions in a 32-bit block")
	}
	return b, e, h, nil
}

// smallBuf is the size of the exception buffer for blocks with few
// exceptions.
const smallBuf = 64

// patchedBlock decodes a block of n values with e > 0 exceptions from
// body, the block after its header, in layout lay, and returns the sum
// of what the exceptions add to their slots, high part << b each. A
// small buffer serves the usual few exceptions without zeroing a large
// one.
func patchedBlock(name string, dst []uint32, body []byte, n, b, e int, lay layout) (uint64, error) {
	if 2*e+s16MaxFields <= smallBuf {
		var buf [smallBuf]uint32
		return patch(name, dst, body, n, b, e, lay, buf[:])
	}
	var buf [2*blockLen + s16MaxFields]uint32
	return patch(name, dst, body, n, b, e, lay, buf[:])
}

// patch is patchedBlock with buf, at least 2e+s16MaxFields values
// (simple16 may write past the 2e wanted): the slots are unpacked, then
// each exception is checked (positions strictly increasing below n, the
// value within 32 bits) as it is patched in, in one pass.
func patch(name string, dst []uint32, body []byte, n, b, e int, lay layout, buf []uint32) (uint64, error) {
	const h = 2 // header bytes, for error offsets
	sl := slotLen(n, b)
	if !s16Decode(buf, 2*e, body[sl:]) {
		return 0, codecplugins.Corrupt(name, h+len(body), "truncated exceptions")
	}
	unpackSlots(dst, body, n, b, lay)
	dst = dst[:n]
	limit := uint32(uint64(1)<<(32-b) - 2) // largest high part minus one that fits
	gaps, highs := buf[:e], buf[e:2*e]
	var added uint64
	p := -1
	for i, g := range gaps {
		p += int(g) + 1
		if p >= n {
			return 0, codecplugins.Corrupt(name, h+sl, "exception position out of range")
		}
		if highs[i] > limit {
			return 0, codecplugins.Corrupt(name, h+sl, "exception overflows 32 bits")
		}
		hi := (highs[i] + 1) << b
		added += uint64(hi)
		dst[p] |= hi
	}
	return added, nil
}

// decodeBlockPrefix is decodeBlock into running sums from base
// (codecplugins.PrefixDecoder) for codec c, called name. A full block
// without exceptions is a bp128 block, width byte and vertical slots, and
// decodes as bp128's does, unpacked and summed in one assembly call; with
// exceptions, its slots are unpacked, patched and then summed
// (bitpack.PrefixSum), SIMD where the CPU has it. Where the sums might
// pass 2^32-1, and for a partial block, it decodes and sums in 64 bits
// (codecplugins.DecodePrefix), which finds the overflow.
func decodeBlockPrefix(c codecplugins.Codec, name string, dst []uint32, src []byte, n int, base uint32) error {
	if n != blockLen || len(dst) < blockLen {
		return codecplugins.DecodePrefix(c, name, dst, src, n, base)
	}
	full := (*[blockLen]uint32)(dst)
	if len(src) > 0 && src[0]&hasExceptions == 0 && bitpack.DecodeVerticalBlockPrefixSIMD(full, src, base) {
		return nil
	}
	b, e, h, err := header(name, src, n)
	if err != nil {
		return err
	}
	if e == 0 {
		if !sumsFit(base, b, 0) {
			return codecplugins.DecodePrefix(c, name, dst, src, n, base)
		}
		bitpack.UnpackVerticalPrefix(full, src[h:], b, base)
		return nil
	}
	added, err := patchedBlock(name, dst, src[h:], n, b, e, vertical)
	if err != nil {
		return err
	}
	if !sumsFit(base, b, added) {
		return codecplugins.DecodePrefix(c, name, dst, src, n, base)
	}
	bitpack.PrefixSum(full, base)
	return nil
}

// sumsFit reports whether running sums from base over a full block of
// b-bit slots, every slot at its largest and added more (the exceptions'
// high parts, shifted), stay below 2^32: then the one-pass sums cannot
// wrap.
func sumsFit(base uint32, b int, added uint64) bool {
	return uint64(base)+blockLen*(uint64(1)<<b-1)+added <= math.MaxUint32
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
