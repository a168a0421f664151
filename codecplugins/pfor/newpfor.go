package pfor

import "github.com/gpusearch/gpusearch/codecplugins"

// NewPFor is the newpfor codec (NewPFD): the slot width is the smallest for
// which at most 10% of the block's values are exceptions.
type NewPFor struct{}

func init() { codecplugins.Register(NewPFor{}) }

const newPForName = "newpfor"

// Name implements codecplugins.Codec.
func (NewPFor) Name() string { return newPForName }

// BlockSize implements codecplugins.Codec.
func (NewPFor) BlockSize() int { return blockLen }

// AppendBlock implements codecplugins.Codec.
func (NewPFor) AppendBlock(dst []byte, v []uint32) []byte {
	return appendBlock(dst, v, newPForWidth(v), vertical)
}

// DecodeBlock implements codecplugins.Codec.
func (NewPFor) DecodeBlock(dst []uint32, src []byte, n int) error {
	return decodeBlock(newPForName, dst, src, n, vertical)
}

// DecodeBlockPrefix implements codecplugins.PrefixDecoder.
func (c NewPFor) DecodeBlockPrefix(dst []uint32, src []byte, n int, base uint32) error {
	return decodeBlockPrefix(c, newPForName, dst, src, n, base)
}

// newPForWidth returns the smallest b >= minWidth for which at most
// len(v)/10 values need more than b bits.
func newPForWidth(v []uint32) int {
	h, maxBits := widthHistogram(v)
	limit := len(v) / 10
	exc := 0 // values wider than b
	b := maxBits
	for b > minWidth(maxBits) && exc+h[b] <= limit {
		exc += h[b]
		b--
	}
	return b
}
