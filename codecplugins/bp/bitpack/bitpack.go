package bitpack

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// BlockLen is the number of values in a vertical block.
const BlockLen = 128

// GroupLen is the number of values in a horizontal group.
const GroupLen = 32

// MaxWidth is the largest bit width.
const MaxWidth = 32

// Width returns the number of bits needed by the largest value in v.
func Width(v []uint32) int {
	var or uint32
	for _, x := range v {
		or |= x
	}
	return bits.Len32(or)
}

// VerticalLen returns the encoded size in bytes of a vertical block of width b.
func VerticalLen(b int) int { return 16 * b }

// HorizontalLen returns the encoded size in bytes of n values of width b in
// the horizontal layout: ceil(n*b/8).
func HorizontalLen(n, b int) int { return (n*b + 7) / 8 }

// AppendVertical appends the low b bits of each value of v in the vertical
// layout (VerticalLen(b) bytes). It requires 0 <= b <= 32.
func AppendVertical(dst []byte, v *[BlockLen]uint32, b int) []byte {
	dst, out := grow(dst, VerticalLen(b))
	packV[b](out, v)
	return dst
}

// UnpackVertical decodes a vertical block of width b from src into dst. It
// requires 0 <= b <= 32 and len(src) >= VerticalLen(b). On amd64 it runs
// the SSE or AVX2 unpacker the CPU supports (see package simd), else the
// pure-Go one; all give the same values.
func UnpackVertical(dst *[BlockLen]uint32, src []byte, b int) {
	if b > 0 && unpackVAsm(dst, src, b) {
		return
	}
	unpackV[b](dst, src)
}

// UnpackVerticalPrefix decodes a vertical block of width b as
// UnpackVertical does and turns the values into running sums from base:
// dst[i] = base + v[0] + ... + v[i], modulo 2^32. It requires what
// UnpackVertical requires. The assembly unpackers add while the values are
// still in registers, which is where a decode followed by a separate
// prefix-sum loop loses most of its time.
func UnpackVerticalPrefix(dst *[BlockLen]uint32, src []byte, b int, base uint32) {
	if b > 0 && unpackVPrefixAsm(dst, src, b, base) {
		return
	}
	unpackV[b](dst, src)
	PrefixSum(dst, base)
}

// UnpackVerticalPatchedPrefix decodes a vertical block of width b as
// UnpackVertical does, adds patch shifted to bit b, and turns the values
// into running sums from base: dst[i] = base + w[0] + ... + w[i] modulo
// 2^32, where w[j] = v[j] + patch[j]<<b. A patched frame-of-reference
// block, patch holding its exceptions' high parts in place and zeros
// elsewhere, so decodes in one pass, the patch added while the values are
// in registers. It requires what UnpackVertical requires.
func UnpackVerticalPatchedPrefix(dst *[BlockLen]uint32, src []byte, b int, patch *[BlockLen]uint32, base uint32) {
	if unpackVPatchedPrefixAsm(dst, src, b, patch, base) {
		return
	}
	unpackV[b](dst, src)
	for i, p := range patch {
		dst[i] += p << b
	}
	PrefixSum(dst, base)
}

// PrefixSum turns the values v of dst into running sums from base,
// dst[i] = base + v[0] + ... + v[i] modulo 2^32, with SIMD where the CPU
// has it: for a block that must be changed between its unpacking and its
// sums (a patched frame-of-reference block's exceptions).
func PrefixSum(dst *[BlockLen]uint32, base uint32) {
	if prefixAsm(dst, base) {
		return
	}
	for i, v := range dst {
		base += v
		dst[i] = base
	}
}

// AppendGroup appends the low b bits of each value of v in the horizontal
// layout (4*b bytes). It requires 0 <= b <= 32.
func AppendGroup(dst []byte, v *[GroupLen]uint32, b int) []byte {
	dst, out := grow(dst, 4*b)
	packH[b](out, v)
	return dst
}

// UnpackGroup decodes a horizontal group of width b from src into dst. It
// requires 0 <= b <= 32 and len(src) >= 4*b.
func UnpackGroup(dst *[GroupLen]uint32, src []byte, b int) {
	unpackH[b](dst, src)
}

// AppendHorizontal appends the low b bits of each value of v in the
// horizontal layout, HorizontalLen(len(v), b) bytes. It requires
// 0 <= b <= 32.
func AppendHorizontal(dst []byte, v []uint32, b int) []byte {
	for len(v) >= GroupLen {
		dst = AppendGroup(dst, (*[GroupLen]uint32)(v), b)
		v = v[GroupLen:]
	}
	if len(v) == 0 {
		return dst
	}
	var g [GroupLen]uint32
	copy(g[:], v)
	var buf [4 * MaxWidth]byte
	packH[b](buf[:], &g)
	return append(dst, buf[:HorizontalLen(len(v), b)]...)
}

// UnpackHorizontal decodes len(dst) values of width b in the horizontal
// layout from src. It requires 0 <= b <= 32 and
// len(src) >= HorizontalLen(len(dst), b).
func UnpackHorizontal(dst []uint32, src []byte, b int) {
	for len(dst) >= GroupLen {
		unpackH[b]((*[GroupLen]uint32)(dst), src)
		dst, src = dst[GroupLen:], src[4*b:]
	}
	if len(dst) == 0 {
		return
	}
	// The last, partial group: its bits are one little-endian stream,
	// value i at bit i*b. Read here with 64-bit loads from a padded copy,
	// since a group array handed to unpackH[b], an indirect call, would
	// escape: two allocations for every list's last block, ten a query on
	// the RFCs.
	var buf [4*MaxWidth + 8]byte
	copy(buf[:], src[:HorizontalLen(len(dst), b)])
	mask := uint64(1)<<b - 1
	for i := range dst {
		bit := i * b
		w := binary.LittleEndian.Uint64(buf[bit>>3:])
		dst[i] = uint32(w >> (bit & 7) & mask)
	}
}

// grow extends dst by n bytes and returns it with the new tail.
func grow(dst []byte, n int) (all, tail []byte) {
	dst = slices.Grow(dst, n)
	all = dst[:len(dst)+n]
	return all, all[len(dst):]
}

// UnpackHorizontalBlock decodes a block of BlockLen values of width b in
// the horizontal layout (value i at bit i*b) from src. It requires
// 0 <= b <= 32 and len(src) >= HorizontalLen(BlockLen, b). On amd64 it
// runs an SSE or AVX2 unpacker for widths up to 25, else the pure-Go one;
// all give the same values.
func UnpackHorizontalBlock(dst *[BlockLen]uint32, src []byte, b int) {
	if unpackHAsm(dst, src, b) {
		return
	}
	UnpackHorizontal(dst[:], src, b)
}
