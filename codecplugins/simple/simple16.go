package simple

import "github.com/gpusearch/gpusearch/codecplugins"

// Simple16 is Simple-16 of Zhang, Long and Suel: like Simple-9, a 4-bit
// selector atop 28 data bits, but all 16 selectors name layouts, some with
// fields of two or three widths (table layouts16). Having no spare
// selector, it escapes with the word 0xFFFFFFFF, the one-field layout
// holding 2^28-1: the next word holds one value in full. So values of
// 2^28-1 and above take two words, and all smaller ones are coded as in
// standard Simple-16.
type Simple16 struct{}

var simple16 = &scheme{
	name:      "simple16",
	layouts:   &layouts16,
	fast:      fast16,
	escape:    escape16,
	maxPacked: 1<<28 - 2,
}

func init() { codecplugins.Register(Simple16{}) }

// Name implements codecplugins.Codec.
func (Simple16) Name() string { return simple16.name }

// BlockSize implements codecplugins.Codec.
func (Simple16) BlockSize() int { return 128 }

// AppendBlock implements codecplugins.Codec.
func (Simple16) AppendBlock(dst []byte, v []uint32) []byte { return simple16.appendBlock(dst, v) }

// DecodeBlock implements codecplugins.Codec.
func (Simple16) DecodeBlock(dst []uint32, src []byte, n int) error {
	return simple16.decodeBlock(dst, src, n)
}

// DecodeWords16 decodes whole Simple-16 words from src[p:] into dst[i:],
// with the unrolled decoder of the simple16 codec, for as long as each
// word's fields all fit in dst, and returns the positions reached. It
// stops before fewer than 4 bytes, before a word holding more fields
// than dst has room for, and before the word 0xFFFFFFFF, which simple16
// reads as its escape and plain Simple-16 as one field of 2^28-1: a codec
// that stores plain Simple-16 (package pfor's exceptions) decodes those
// words itself.
//
// With AVX2 the words decode in assembly, without a branch on their
// selectors, while dst has room for 28 more values; the unrolled Go
// decoder takes the words after. Either may write anywhere in dst[i:],
// past the values it returns too.
func DecodeWords16(dst []uint32, src []byte, i, p int) (int, int) {
	i, p = decodeWords16Asm(dst, src, i, p)
	return fast16(dst, src, i, p)
}
