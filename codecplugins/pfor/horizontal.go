package pfor

import "github.com/gpusearch/gpusearch/codecplugins"

// NewPForHor is newpfor with a full block's slots in the horizontal
// layout (the first paper's NewPFor-Hor): the same widths and sizes,
// decoded by the horizontal SIMD unpackers of package bitpack.
type NewPForHor struct{}

// OptPForHor is optpfor with a full block's slots in the horizontal
// layout (OptPFor-Hor).
type OptPForHor struct{}

func init() {
	codecplugins.Register(NewPForHor{})
	codecplugins.Register(OptPForHor{})
}

const (
	newPForHorName = "newpfor-hor"
	optPForHorName = "optpfor-hor"
)

// Name implements codecplugins.Codec.
func (NewPForHor) Name() string { return newPForHorName }

// BlockSize implements codecplugins.Codec.
func (NewPForHor) BlockSize() int { return blockLen }

// AppendBlock implements codecplugins.Codec.
func (NewPForHor) AppendBlock(dst []byte, v []uint32) []byte {
	return appendBlock(dst, v, newPForWidth(v), horizontal)
}

// DecodeBlock implements codecplugins.Codec.
func (NewPForHor) DecodeBlock(dst []uint32, src []byte, n int) error {
	return decodeBlock(newPForHorName, dst, src, n, horizontal)
}

// Name implements codecplugins.Codec.
func (OptPForHor) Name() string { return optPForHorName }

// BlockSize implements codecplugins.Codec.
func (OptPForHor) BlockSize() int { return blockLen }

// AppendBlock implements codecplugins.Codec.
func (OptPForHor) AppendBlock(dst []byte, v []uint32) []byte {
	return appendBlock(dst, v, optPForWidth(v), horizontal)
}

// DecodeBlock implements codecplugins.Codec.
func (OptPForHor) DecodeBlock(dst []uint32, src []byte, n int) error {
	return decodeBlock(optPForHorName, dst, src, n, horizontal)
}
