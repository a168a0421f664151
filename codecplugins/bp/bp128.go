package bp

import (
	"math"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
)

// BP128 is the bp128 codec: one bit width per block of 128 values, packed
// in the 4-way vertical layout of SIMD-BP128. It is a
// codecplugins.PrefixDecoder.
type BP128 struct{}

func init() { codecplugins.Register(BP128{}) }

const bp128Name = "bp128"

// Name implements codecplugins.Codec.
func (BP128) Name() string { return bp128Name }

// BlockSize implements codecplugins.Codec.
func (BP128) BlockSize() int { return bitpack.BlockLen }

// AppendBlock implements codecplugins.Codec.
func (BP128) AppendBlock(dst []byte, v []uint32) []byte {
	if len(v) == 0 {
		return dst
	}
	b := bitpack.Width(v)
	dst = append(dst, byte(b))
	if len(v) == bitpack.BlockLen {
		return bitpack.AppendVertical(dst, (*[bitpack.BlockLen]uint32)(v), b)
	}
	return bitpack.AppendHorizontal(dst, v, b)
}

// DecodeBlock implements codecplugins.Codec. A full block takes one
// assembly call where there is one (bitpack.DecodeVerticalBlockSIMD); the
// checks and the pure-Go decode below serve the Go level and the blocks
// that call refuses.
func (BP128) DecodeBlock(dst []uint32, src []byte, n int) error {
	if n == bitpack.BlockLen {
		full := (*[bitpack.BlockLen]uint32)(dst)
		if bitpack.DecodeVerticalBlockSIMD(full, src) {
			return nil
		}
		if len(src) == 0 {
			return codecplugins.Corrupt(bp128Name, 0, "missing width byte")
		}
		b := int(src[0])
		if b > bitpack.MaxWidth {
			return codecplugins.Corrupt(bp128Name, 0, "bit width above 32")
		}
		if len(src)-1 < bitpack.VerticalLen(b) {
			return codecplugins.Corrupt(bp128Name, len(src), "truncated block")
		}
		bitpack.UnpackVertical(full, src[1:], b)
		return nil
	}
	if n < 0 || n > bitpack.BlockLen {
		return codecplugins.Corrupt(bp128Name, 0, "value count out of range")
	}
	if n == 0 {
		return nil
	}
	if len(src) == 0 {
		return codecplugins.Corrupt(bp128Name, 0, "missing width byte")
	}
	b := int(src[0])
	if b > bitpack.MaxWidth {
		return codecplugins.Corrupt(bp128Name, 0, "bit width above 32")
	}
	if len(src)-1 < bitpack.HorizontalLen(n, b) {
		return codecplugins.Corrupt(bp128Name, len(src), "truncated block")
	}
	bitpack.UnpackHorizontal(dst[:n], src[1:], b)
	return nil
}

// DecodeBlockPrefix implements codecplugins.PrefixDecoder. A full block
// whose sums cannot exceed 2^32-1, since 128 values below 2^b added to base
// stay below it, is decoded and summed in one pass, by one assembly call
// (bitpack.DecodeVerticalBlockPrefixSIMD) where there is one, else by
// bitpack.UnpackVerticalPrefix; any other block is decoded and then
// summed in 64 bits, which finds the overflow.
func (c BP128) DecodeBlockPrefix(dst []uint32, src []byte, n int, base uint32) error {
	if n == bitpack.BlockLen && len(src) > 0 {
		full := (*[bitpack.BlockLen]uint32)(dst)
		if bitpack.DecodeVerticalBlockPrefixSIMD(full, src, base) {
			return nil
		}
		b := int(src[0])
		if b <= bitpack.MaxWidth && len(src)-1 >= bitpack.VerticalLen(b) &&
			uint64(base)+bitpack.BlockLen*(uint64(1)<<b-1) <= math.MaxUint32 {
			bitpack.UnpackVerticalPrefix(full, src[1:], b, base)
			return nil
		}
	}
	return codecplugins.DecodePrefix(c, bp128Name, dst, src, n, base)
}
