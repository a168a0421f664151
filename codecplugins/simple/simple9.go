package simple

import "github.com/gpusearch/gpusearch/codecplugins"

// Simple9 is Anh and Moffat's Simple-9: each little-endian 32-bit word has a
// 4-bit selector in its top bits choosing how its low 28 bits split into
// equal fields (28x1, 14x2, 9x3, 7x4, 5x5, 4x7, 3x9, 2x14 or 1x28 bits,
// selectors 0 to 8), values stored from the low bits up. Selector 9, as the
// word 0x90000000, is our escape: the next word holds one value in full,
// for values of 2^28 and above. Selectors 10 to 15 are invalid.
type Simple9 struct{}

var simple9 = &scheme{
	name:      "simple9",
	layouts:   &layouts9,
	fast:      fast9,
	escape:    escape9,
	maxPacked: 1<<28 - 1,
}

func init() { codecplugins.Register(Simple9{}) }

// Name implements codecplugins.Codec.
func (Simple9) Name() string { return simple9.name }

// BlockSize implements codecplugins.Codec.
func (Simple9) BlockSize() int { return 128 }

// AppendBlock implements codecplugins.Codec.
func (Simple9) AppendBlock(dst []byte, v []uint32) []byte { return simple9.appendBlock(dst, v) }

// DecodeBlock implements codecplugins.Codec.
func (Simple9) DecodeBlock(dst []uint32, src []byte, n int) error {
	return simple9.decodeBlock(dst, src, n)
}
