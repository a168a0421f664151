package varint

import "github.com/gpusearch/gpusearch/codecplugins"

// G4B is varint-G4B (Dean's group varint, varint-GB): values go in groups of
// four, each group one descriptor byte holding the four byte lengths (2 bits
// each, value j in bits 2j..2j+1, length-1) followed by the four values in 1
// to 4 little-endian bytes each. The block's last group may hold fewer than
// four values; its unused descriptor bits are zero.
type G4B struct{}

const g4bName = "varint-G4B"

func init() { codecplugins.Register(G4B{}) }

// Name implements codecplugins.Codec.
func (G4B) Name() string { return g4bName }

// BlockSize implements codecplugins.Codec.
func (G4B) BlockSize() int { return 128 }

// AppendBlock implements codecplugins.Codec.
func (G4B) AppendBlock(dst []byte, v []uint32) []byte {
	for len(v) > 0 {
		g := v[:min(4, len(v))]
		h := len(dst)
		dst = append(dst, 0)
		for j, x := range g {
			k := byteLen(x)
			dst[h] |= byte(k-1) << (2 * j)
			dst = appendLE(dst, x, k)
		}
		v = v[len(g):]
	}
	return dst
}

// DecodeBlock implements codecplugins.Codec.
func (G4B) DecodeBlock(dst []uint32, src []byte, n int) error {
	dst = dst[:n]
	i, p := g4bGroups(dst, src, 0, 0, len(src))
	if i+4 <= n {
		// Fewer than 20 bytes are left: decode the whole groups among
		// them from a zero-padded copy, with the same loads.
		var buf [40]byte
		m := copy(buf[:20], src[p:])
		var b int
		i, b = g4bGroups(dst, buf[:], i, 0, m)
		p += b
	}
	return decodeGroupsSafe(g4bName, dst, src, i, p, 1)
}

// g4bGroups decodes whole groups from src[p:] into dst[i:] while 4 values
// are wanted, 20 bytes of src remain (a descriptor and a load window), and
// the group ends by limit. It returns the positions reached.
func g4bGroups(dst []uint32, src []byte, i, p, limit int) (int, int) {
	for i+4 <= len(dst) && p+20 <= len(src) {
		q := &quads[src[p]]
		e := p + 1 + int(q.end[3])
		if e > limit {
			break
		}
		decodeQuad((*[4]uint32)(dst[i:i+4]), (*[19]byte)(src[p+1:p+20]), q)
		p = e
		i += 4
	}
	return i, p
}
