package varint

import "github.com/gpusearch/gpusearch/codecplugins"

// SU is varint-SU ("single unit" VByte): each value is written as 7-bit
// groups, least significant first; a set high bit means more bytes follow.
// A 32-bit value takes at most 5 bytes.
type SU struct{}

func init() { codecplugins.Register(SU{}) }

// Name implements codecplugins.Codec.
func (SU) Name() string { return "varint-SU" }

// BlockSize implements codecplugins.Codec.
func (SU) BlockSize() int { return 128 }

// AppendBlock implements codecplugins.Codec.
func (SU) AppendBlock(dst []byte, v []uint32) []byte {
	for _, x := range v {
		for x >= 0x80 {
			dst = append(dst, byte(x)|0x80)
			x >>= 7
		}
		dst = append(dst, byte(x))
	}
	return dst
}

// DecodeBlock implements codecplugins.Codec.
func (SU) DecodeBlock(dst []uint32, src []byte, n int) error {
	// The masked VByte assembly, where there is one, decodes all but the
	// last values; the loop below takes the rest, and any error.
	i, p := suAsm(dst[:n], src)
	for ; i < n; i++ {
		// Fast path: one-byte value.
		if p < len(src) && src[p] < 0x80 {
			dst[i] = uint32(src[p])
			p++
			continue
		}
		var x uint32
		var shift uint
		for {
			if p >= len(src) {
				return codecplugins.Corrupt("varint-SU", p, "truncated value")
			}
			b := src[p]
			p++
			if shift == 28 && b > 0x0F {
				return codecplugins.Corrupt("varint-SU", p-1, "value overflows 32 bits")
			}
			x |= uint32(b&0x7F) << shift
			if b < 0x80 {
				break
			}
			shift += 7
		}
		dst[i] = x
	}
	return nil
}
