package bp

import (
	"math"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
	"github.com/gpusearch/gpusearch/internal/simd"
)

// BP128 is the bp128 codec: one bit width per block of 128 values, packed
// in the 4-way vertical layout of SIMD-BP128. It is a
// codecplugins.PrefixDecoder.
//
// Its one field, never set, makes the type pointer-shaped: an interface
// then holds the value itself, and its method table calls DecodeBlock
// directly, where a zero-size type's goes through a generated wrapper,
// one more call per block.
type BP128 struct{ _ *byte }

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

// DecodeBlock implements codecplugins.Codec. A full block, at a SIMD
// level, is checked here and decoded by one assembly call that checks
// nothing (bitpack.UnpackVerticalSIMD): with the checks in Go, nothing
// is live across that call, so it costs no spills. bp128Decode, the
// pure-Go path, serves the Go level and every other block.
func (BP128) DecodeBlock(dst []uint32, src []byte, n int) error {
	// The level first, so that the Go level pays one test for the path
	// it does not take.
	if lv := simd.Current(); lv != simd.Go && n == bitpack.BlockLen &&
		len(dst) >= bitpack.BlockLen && len(src) > 0 {
		if b := int(src[0]); b <= bitpack.MaxWidth && len(src) > bitpack.VerticalLen(b) {
			bitpack.UnpackVerticalSIMD((*[bitpack.BlockLen]uint32)(dst), src[1:], b, lv)
			return nil
		}
	}
	return bp128Decode(dst, src, n)
}

// bp128Decode is DecodeBlock's pure-Go path: it checks the block and
// unpacks it, vertical if full, horizontal if not.
func bp128Decode(dst []uint32, src []byte, n int) error {
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
	if n == bitpack.BlockLen {
		if len(src)-1 < bitpack.VerticalLen(b) {
			return codecplugins.Corrupt(bp128Name, len(src), "truncated block")
		}
		bitpack.UnpackVertical((*[bitpack.BlockLen]uint32)(dst), src[1:], b)
		return nil
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
	if n == bitpack.BlockLen && len(dst) >= bitpack.BlockLen && len(src) > 0 {
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
