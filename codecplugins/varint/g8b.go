package varint

import "github.com/gpusearch/gpusearch/codecplugins"

// G8B is varint-G8B: like varint-G4B but with groups of eight values, each
// group two descriptor bytes (the first for values 0-3, the second for 4-7,
// laid out as in G4B) followed by the eight values' data bytes. The block's
// last group may hold fewer than eight values; it still has both descriptor
// bytes, with unused bits zero.
type G8B struct{}

const g8bName = "varint-G8B"

func init() { codecplugins.Register(G8B{}) }

// Name implements codecplugins.Codec.
func (G8B) Name() string { return g8bName }

// BlockSize implements codecplugins.Codec.
func (G8B) BlockSize() int { return 128 }

// AppendBlock implements codecplugins.Codec.
func (G8B) AppendBlock(dst []byte, v []uint32) []byte {
	for len(v) > 0 {
		g := v[:min(8, len(v))]
		h := len(dst)
		dst = append(dst, 0, 0)
		for j, x := range g {
			k := byteLen(x)
			dst[h+j>>2] |= byte(k-1) << (2 * (j & 3))
			dst = appendLE(dst, x, k)
		}
		v = v[len(g):]
	}
	return dst
}

// DecodeBlock implements codecplugins.Codec.
func (G8B) DecodeBlock(dst []uint32, src []byte, n int) error {
	dst = dst[:n]
	i, p := g8bGroups(dst, src, 0, 0, len(src))
	if i+8 <= n {
		// Fewer than 37 bytes are left: decode the whole groups among
		// them from a zero-padded copy, with the same loads.
		var buf [80]byte
		m := copy(buf[:37], src[p:])
		var b int
		i, b = g8bGroups(dst, buf[:], i, 0, m)
		p += b
	}
	return decodeGroupsSafe(g8bName, dst, src, i, p, 2)
}

// g8bGroups decodes whole groups from src[p:] into dst[i:] while 8 values
// are wanted, 37 bytes of src remain (two descriptors, up to 16 data bytes
// of the first four values and a load window for the last four), and the
// group ends by limit. It returns the positions reached.
func g8bGroups(dst []uint32, src []byte, i, p, limit int) (int, int) {
	for i+8 <= len(dst) && p+37 <= len(src) {
		q0, q1 := &quads[src[p]], &quads[src[p+1]]
		e1 := p + 2 + int(q0.end[3])
		e := e1 + int(q1.end[3])
		if e > limit {
			break
		}
		decodeQuad((*[4]uint32)(dst[i:i+4]), (*[19]byte)(src[p+2:p+21]), q0)
		decodeQuad((*[4]uint32)(dst[i+4:i+8]), (*[19]byte)(src[e1:e1+19]), q1)
		p = e
		i += 8
	}
	return i, p
}
