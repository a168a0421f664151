package gpuformat

import (
	"encoding/binary"

	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
)

// words is the number of 32-bit words that n values of b bits fill.
func words(n, b int) int { return (n*b + 31) / 32 }

// appendPacked appends the low b bits of each value of v as one horizontal
// bit stream (bitpack's layout), zero-padded to a whole number of 32-bit
// words: words(len(v), b) words in all.
func appendPacked(dst []byte, v []uint32, b int) []byte {
	if len(v) == bitpack.GroupLen {
		return bitpack.AppendGroup(dst, (*[bitpack.GroupLen]uint32)(v), b)
	}
	start := len(dst)
	dst = bitpack.AppendHorizontal(dst, v, b)
	for len(dst)-start < 4*words(len(v), b) {
		dst = append(dst, 0)
	}
	return dst
}

// unpack decodes len(dst) values of b bits from the horizontal stream at
// the start of src, which must hold at least 4*words(len(dst), b) bytes.
func unpack(dst []uint32, src []byte, b int) {
	for len(dst) >= bitpack.GroupLen {
		bitpack.UnpackGroup((*[bitpack.GroupLen]uint32)(dst), src, b)
		dst, src = dst[bitpack.GroupLen:], src[4*b:]
	}
	if len(dst) > 0 {
		bitpack.UnpackHorizontal(dst, src, b)
	}
}

// unpackSlow is unpack for short runs, such as exception arrays, by a loop
// over a bit buffer: unlike bitpack's kernels, reached through a table of
// functions, it lets a caller's stack array stay on the stack.
func unpackSlow(dst []uint32, src []byte, b int) {
	var acc uint64
	nb := 0
	mask := uint64(1)<<b - 1
	for i := range dst {
		if nb < b {
			acc |= uint64(le32(src)) << nb
			src = src[4:]
			nb += 32
		}
		dst[i] = uint32(acc & mask)
		acc >>= b
		nb -= b
	}
}

func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

// checkLen panics when an encoder is handed more values than a block holds:
// a programmer error, like an out-of-range slice index.
func checkLen(name string, n, size int) {
	if n > size {
		panic("gpuformat: " + name + ": AppendBlock of more values than the block size")
	}
}
