package bp

import (
	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
)

// BP32 is the bp32 codec: blocks of 128 values cut into sub-blocks of 32,
// each with its own bit width, packed in the horizontal layout.
type BP32 struct{}

func init() { codecplugins.Register(BP32{}) }

const bp32Name = "bp32"

// Name implements codecplugins.Codec.
func (BP32) Name() string { return bp32Name }

// BlockSize implements codecplugins.Codec.
func (BP32) BlockSize() int { return bitpack.BlockLen }

// AppendBlock implements codecplugins.Codec.
func (BP32) AppendBlock(dst []byte, v []uint32) []byte {
	for i := 0; i < len(v); i += bitpack.GroupLen {
		dst = append(dst, byte(bitpack.Width(v[i:min(i+bitpack.GroupLen, len(v))])))
	}
	for len(v) > 0 {
		g := v[:min(bitpack.GroupLen, len(v))]
		dst = bitpack.AppendHorizontal(dst, g, bitpack.Width(g))
		v = v[len(g):]
	}
	return dst
}

// DecodeBlock implements codecplugins.Codec.
func (BP32) DecodeBlock(dst []uint32, src []byte, n int) error {
	if n == bitpack.BlockLen && len(src) >= 4 {
		// Full block: four whole groups, no tail.
		b0, b1, b2, b3 := int(src[0]), int(src[1]), int(src[2]), int(src[3])
		if max(b0, b1, b2, b3) <= bitpack.MaxWidth && len(src)-4 >= 4*(b0+b1+b2+b3) {
			d := (*[bitpack.BlockLen]uint32)(dst)
			body := src[4:]
			bitpack.UnpackGroup((*[bitpack.GroupLen]uint32)(d[0:]), body, b0)
			body = body[4*b0:]
			bitpack.UnpackGroup((*[bitpack.GroupLen]uint32)(d[32:]), body, b1)
			body = body[4*b1:]
			bitpack.UnpackGroup((*[bitpack.GroupLen]uint32)(d[64:]), body, b2)
			body = body[4*b2:]
			bitpack.UnpackGroup((*[bitpack.GroupLen]uint32)(d[96:]), body, b3)
			return nil
		}
		// Fall through to the general path, which names the error.
	}
	if n < 0 || n > bitpack.BlockLen {
		return codecplugins.Corrupt(bp32Name, 0, "value count out of range")
	}
	groups := (n + bitpack.GroupLen - 1) / bitpack.GroupLen
	if len(src) < groups {
		return codecplugins.Corrupt(bp32Name, len(src), "truncated width header")
	}
	widths, body := src[:groups], src[groups:]
	// Validate the whole block before writing anything.
	need := 0
	for k, w := range widths {
		b := int(w)
		if b > bitpack.MaxWidth {
			return codecplugins.Corrupt(bp32Name, k, "bit width above 32")
		}
		need += bitpack.HorizontalLen(min(bitpack.GroupLen, n-k*bitpack.GroupLen), b)
	}
	if len(body) < need {
		return codecplugins.Corrupt(bp32Name, len(src), "truncated block")
	}
	for k, w := range widths {
		b := int(w)
		if r := n - k*bitpack.GroupLen; r < bitpack.GroupLen {
			bitpack.UnpackHorizontal(dst[k*bitpack.GroupLen:n], body, b)
			break
		}
		bitpack.UnpackGroup((*[bitpack.GroupLen]uint32)(dst[k*bitpack.GroupLen:]), body, b)
		body = body[4*b:]
	}
	return nil
}
