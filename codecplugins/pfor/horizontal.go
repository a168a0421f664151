package pfor

import "github.com/gpusearch/gpusearch/codecplugins"

// horizontalPFor is newpfor or optpfor with a full block's slots in the
// horizontal layout (the first paper's NewPFor-Hor and OptPFor-Hor): the
// same widths and sizes, decoded by the horizontal SIMD unpackers of
// package bitpack.
type horizontalPFor struct {
	name  string
	width func(v []uint32) int
}

func init() {
	codecplugins.Register(horizontalPFor{"newpfor-hor", newPForWidth})
	codecplugins.Register(horizontalPFor{"optpfor-hor", optPForWidth})
}

// Name implements codecplugins.Codec.
func (c horizontalPFor) Name() string { return c.name }

// BlockSize implements codecplugins.Codec.
func (horizontalPFor) BlockSize() int { return blockLen }

// AppendBlock implements codecplugins.Codec.
func (c horizontalPFor) AppendBlock(dst []byte, v []uint32) []byte {
	return appendBlock(dst, v, c.width(v), horizontal)
}

// DecodeBlock implements codecplugins.Codec.
func (c horizontalPFor) DecodeBlock(dst []uint32, src []byte, n int) error {
	return decodeBlock(c.name, dst, src, n, horizontal)
}
