package gpuformat

import (
	"encoding/binary"
	"math/bits"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
)

// Rice is gpu-rice: Golomb-Rice codes with the binary remainders and the
// unary quotients in two separate bit streams, so that a GPU decodes each
// by a prefix sum. See the package doc.
type Rice struct{}

const (
	riceName = "gpu-rice"
	// RiceBlockSize is gpu-rice's block size: one warp's 128 values.
	RiceBlockSize = 128
	// RiceMaxQuotient bounds every unary quotient: the encoder never picks
	// a parameter below bits(max)-8, so a block's unary stream stays short.
	RiceMaxQuotient = 255
)

func init() { codecplugins.Register(Rice{}) }

// Name implements codecplugins.Codec.
func (Rice) Name() string { return riceName }

// BlockSize implements codecplugins.Codec.
func (Rice) BlockSize() int { return RiceBlockSize }

// riceParam picks the parameter b in [bits(max)-8, 32] that makes the block
// smallest (the smallest such b on a tie), and returns it with the number
// of unary words.
func riceParam(v []uint32) (b, unaryWords int) {
	lo := max(0, bitpack.Width(v)-bits.Len(RiceMaxQuotient))
	best := -1
	for k := lo; k <= 32; k++ {
		q := 0
		for _, x := range v {
			q += int(uint64(x) >> k)
		}
		u := words(q+len(v), 1)
		if size := words(len(v), k) + u; best < 0 || size < best {
			best, b, unaryWords = size, k, u
		}
	}
	return b, unaryWords
}

// AppendBlock implements codecplugins.Codec.
func (Rice) AppendBlock(dst []byte, v []uint32) []byte {
	checkLen(riceName, len(v), RiceBlockSize)
	b, u := riceParam(v)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(b)|uint32(u)<<16)
	dst = appendPacked(dst, v, b)
	// Unary stream: for each value, q one bits and then a zero bit, from the
	// low bit of each word up.
	var acc uint64
	nb := 0
	for _, x := range v {
		q := int(uint64(x) >> b)
		for q+1 > 64-nb {
			// The run does not fit: fill the buffer with ones, flush a word.
			acc |= (1<<(64-nb) - 1) << nb
			q -= 64 - nb
			nb = 64
			dst = binary.LittleEndian.AppendUint32(dst, uint32(acc))
			acc >>= 32
			nb -= 32
		}
		acc |= (1<<q - 1) << nb
		nb += q + 1
		for nb >= 32 {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(acc))
			acc >>= 32
			nb -= 32
		}
	}
	if nb > 0 {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(acc))
	}
	return dst
}

// DecodeBlock implements codecplugins.Codec.
func (Rice) DecodeBlock(dst []uint32, src []byte, n int) error {
	if n < 0 || n > RiceBlockSize {
		return codecplugins.Corrupt(riceName, 0, "value count out of range")
	}
	if len(src) < 4 {
		return codecplugins.Corrupt(riceName, len(src), "truncated header")
	}
	h := le32(src)
	b, u := int(h&63), int(h>>16)
	switch {
	case b > 32:
		return codecplugins.Corrupt(riceName, 0, "parameter above 32")
	case h&0xFFC0 != 0:
		return codecplugins.Corrupt(riceName, 0, "reserved header bits set")
	}
	bin := 4 * words(n, b)
	if len(src) < 4+bin+4*u {
		return codecplugins.Corrupt(riceName, len(src), "truncated block")
	}
	out := dst[:n]
	unpack(out, src[4:], b)
	unary := src[4+bin : 4+bin+4*u]
	// limit is the first quotient that overflows 32 bits.
	limit := uint64(1) << (32 - b)
	i, last := 0, -1 // values done; bit position of the last zero
	for w := 0; w < u && i < n; w++ {
		z := ^le32(unary[4*w:])
		for z != 0 && i < n {
			pos := 32*w + bits.TrailingZeros32(z)
			q := uint64(pos - last - 1)
			if q >= limit {
				return codecplugins.Corrupt(riceName, 4+bin+4*w, "quotient overflows 32 bits")
			}
			out[i] |= uint32(q << b)
			last = pos
			z &= z - 1
			i++
		}
	}
	switch {
	case i < n:
		return codecplugins.Corrupt(riceName, 4+bin+4*u, "unary stream ends before the last value")
	case n > 0 && last/32 != u-1:
		return codecplugins.Corrupt(riceName, 4+bin, "unary stream longer than its values")
	}
	return nil
}
