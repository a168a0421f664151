package gpuformat

import (
	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
)

// MiniblockLen is the number of values in a GPU-BP miniblock: one warp's
// worth, each miniblock with its own bit width.
const MiniblockLen = 32

// BP is GPU-BP (gpu-bp128, gpu-bp256): a block is a header of one width
// byte per 32-value miniblock, then each miniblock's values packed in its
// width, horizontally, in whole 32-bit words. See the package doc.
type BP struct {
	size int
	name string
}

func init() {
	codecplugins.Register(BP{128, "gpu-bp128"})
	codecplugins.Register(BP{256, "gpu-bp256"})
}

// Name implements codecplugins.Codec.
func (c BP) Name() string { return c.name }

// BlockSize implements codecplugins.Codec.
func (c BP) BlockSize() int { return c.size }

// AppendBlock implements codecplugins.Codec.
func (c BP) AppendBlock(dst []byte, v []uint32) []byte {
	checkLen(c.name, len(v), c.size)
	hdr := len(dst)
	dst = append(dst, make([]byte, c.size/MiniblockLen)...)
	for k := 0; k*MiniblockLen < len(v); k++ {
		g := v[k*MiniblockLen : min(len(v), (k+1)*MiniblockLen)]
		w := bitpack.Width(g)
		dst[hdr+k] = byte(w)
		dst = appendPacked(dst, g, w)
	}
	return dst
}

// DecodeBlock implements codecplugins.Codec.
func (c BP) DecodeBlock(dst []uint32, src []byte, n int) error {
	if n < 0 || n > c.size {
		return codecplugins.Corrupt(c.name, 0, "value count out of range")
	}
	g := c.size / MiniblockLen
	if len(src) < g {
		return codecplugins.Corrupt(c.name, len(src), "truncated width header")
	}
	m := (n + MiniblockLen - 1) / MiniblockLen
	need := g
	for k, w := range src[:g] {
		switch {
		case k >= m && w != 0:
			return codecplugins.Corrupt(c.name, k, "width set for a miniblock past the last value")
		case w > 32:
			return codecplugins.Corrupt(c.name, k, "bit width above 32")
		}
		need += 4 * words(min(MiniblockLen, n-k*MiniblockLen), int(w))
	}
	if len(src) < need {
		return codecplugins.Corrupt(c.name, len(src), "truncated block")
	}
	body := src[g:]
	for k := 0; k < m; k++ {
		w := int(src[k])
		if n-k*MiniblockLen >= MiniblockLen {
			bitpack.UnpackGroup((*[MiniblockLen]uint32)(dst[k*MiniblockLen:]), body, w)
			body = body[4*w:]
			continue
		}
		bitpack.UnpackHorizontal(dst[k*MiniblockLen:n], body, w)
	}
	return nil
}
