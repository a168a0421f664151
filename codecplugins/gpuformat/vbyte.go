package gpuformat

import (
	"math/bits"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// VByte is GPU-VByte (gpu-vbyte128, gpu-vbyte1024): a block is the 2-bit
// byte-length selectors of its values, four to a byte, then the values'
// bytes, each value in 1 to 4 little-endian bytes. See the package doc.
type VByte struct {
	size int
	name string
}

func init() {
	codecplugins.Register(VByte{128, "gpu-vbyte128"})
	codecplugins.Register(VByte{1024, "gpu-vbyte1024"})
}

// Name implements codecplugins.Codec.
func (c VByte) Name() string { return c.name }

// BlockSize implements codecplugins.Codec.
func (c VByte) BlockSize() int { return c.size }

// AppendBlock implements codecplugins.Codec.
func (c VByte) AppendBlock(dst []byte, v []uint32) []byte {
	checkLen(c.name, len(v), c.size)
	sel := len(dst)
	dst = append(dst, make([]byte, (len(v)+3)/4)...)
	for i, x := range v {
		l := max(1, (bits.Len32(x)+7)/8)
		dst[sel+i/4] |= byte(l-1) << (2 * (i % 4))
		for ; l > 0; l-- {
			dst = append(dst, byte(x))
			x >>= 8
		}
	}
	return dst
}

// selectorBytes[s] is the number of data bytes of the four values whose
// selectors are packed in the selector byte s.
var selectorBytes = func() (t [256]uint8) {
	for s := range t {
		t[s] = uint8(4 + s&3 + s>>2&3 + s>>4&3 + s>>6&3)
	}
	return t
}()

var byteMasks = [4]uint32{0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF}

// DecodeBlock implements codecplugins.Codec.
func (c VByte) DecodeBlock(dst []uint32, src []byte, n int) error {
	if n < 0 || n > c.size {
		return codecplugins.Corrupt(c.name, 0, "value count out of range")
	}
	ns := (n + 3) / 4
	if len(src) < ns {
		return codecplugins.Corrupt(c.name, len(src), "truncated selectors")
	}
	sel := src[:ns]
	total := ns
	for _, s := range sel[:n/4] {
		total += int(selectorBytes[s])
	}
	for i := n &^ 3; i < n; i++ {
		total += int(sel[i/4]>>(2*(i%4))&3) + 1
	}
	if len(src) < total {
		return codecplugins.Corrupt(c.name, len(src), "truncated data")
	}
	// Every value now lies inside src[:total]; a 4-byte load needs 4 bytes
	// left, which only the last few values can lack.
	p := ns
	i := 0
	// Four values per selector byte while 16 bytes remain, so every load
	// below is in bounds.
	for ; i+4 <= n && p+16 <= len(src); i += 4 {
		s := sel[i/4]
		l0, l1, l2, l3 := s&3, s>>2&3, s>>4&3, s>>6
		d := dst[i : i+4 : i+4]
		d[0] = le32(src[p:]) & byteMasks[l0]
		p += int(l0) + 1
		d[1] = le32(src[p:]) & byteMasks[l1]
		p += int(l1) + 1
		d[2] = le32(src[p:]) & byteMasks[l2]
		p += int(l2) + 1
		d[3] = le32(src[p:]) & byteMasks[l3]
		p += int(l3) + 1
	}
	for ; i < n && p+4 <= len(src); i++ {
		l := sel[i/4] >> (2 * (i % 4)) & 3
		dst[i] = le32(src[p:]) & byteMasks[l]
		p += int(l) + 1
	}
	for ; i < n; i++ {
		l := int(sel[i/4]>>(2*(i%4))&3) + 1
		var x uint32
		for j := l - 1; j >= 0; j-- {
			x = x<<8 | uint32(src[p+j])
		}
		dst[i] = x
		p += l
	}
	return nil
}
