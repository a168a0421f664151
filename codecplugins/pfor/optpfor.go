package pfor

import (
	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
)

// OptPFor is the optpfor codec (OptPFD): the slot width is the one that
// minimises the encoded size of the block.
type OptPFor struct{}

func init() { codecplugins.Register(OptPFor{}) }

const optPForName = "optpfor"

// Name implements codecplugins.Codec.
func (OptPFor) Name() string { return optPForName }

// BlockSize implements codecplugins.Codec.
func (OptPFor) BlockSize() int { return blockLen }

// AppendBlock implements codecplugins.Codec.
func (OptPFor) AppendBlock(dst []byte, v []uint32) []byte {
	return appendBlock(dst, v, optPForWidth(v), vertical)
}

// DecodeBlock implements codecplugins.Codec.
func (OptPFor) DecodeBlock(dst []uint32, src []byte, n int) error {
	return decodeBlock(optPForName, dst, src, n, vertical)
}

// DecodeBlockPrefix implements codecplugins.PrefixDecoder.
func (c OptPFor) DecodeBlockPrefix(dst []uint32, src []byte, n int, base uint32) error {
	return decodeBlockPrefix(c, optPForName, dst, src, n, base)
}

// optPForWidth returns the b that gives the smallest block, trying every
// width from the largest value's down to minWidth. Ties go to the larger b,
// which has fewer exceptions to patch.
func optPForWidth(v []uint32) int {
	maxBits := bitpack.Width(v)
	best, bestLen := maxBits, blockLenAt(v, maxBits)
	for b := maxBits - 1; b >= minWidth(maxBits); b-- {
		if l := blockLenAt(v, b); l < bestLen {
			best, bestLen = b, l
		}
	}
	return best
}
