package varint

import (
	"encoding/binary"

	"github.com/gpusearch/gpusearch/codecplugins"
)

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
	i, p := 0, 0
	// Whole groups with 35 bytes of src from the descriptors on: loads
	// start at each value, inside a fixed window the compiler can prove in
	// bounds (offsets <= 30, masked to <= 31, plus 4 bytes).
	for i+8 <= n && p+35 <= len(src) {
		w := (*[35]byte)(src[p : p+35])
		q0, q1 := &quads[w[0]], &quads[w[1]]
		b1 := 2 + q0.end[3]
		d := (*[8]uint32)(dst[i : i+8])
		d[0] = binary.LittleEndian.Uint32(w[2:]) & q0.mask[0]
		d[1] = binary.LittleEndian.Uint32(w[(2+q0.off[1])&31:]) & q0.mask[1]
		d[2] = binary.LittleEndian.Uint32(w[(2+q0.off[2])&31:]) & q0.mask[2]
		d[3] = binary.LittleEndian.Uint32(w[(2+q0.off[3])&31:]) & q0.mask[3]
		d[4] = binary.LittleEndian.Uint32(w[b1&31:]) & q1.mask[0]
		d[5] = binary.LittleEndian.Uint32(w[(b1+q1.off[1])&31:]) & q1.mask[1]
		d[6] = binary.LittleEndian.Uint32(w[(b1+q1.off[2])&31:]) & q1.mask[2]
		d[7] = binary.LittleEndian.Uint32(w[(b1+q1.off[3])&31:]) & q1.mask[3]
		p += int(b1) + int(q1.end[3])
		i += 8
	}
	// Near the end of src: whole groups, checked to be there, read with
	// loads that end at each value, so none passes the group's last byte.
	for i+8 <= n && p >= 3 && p+2 <= len(src) {
		q0, q1 := &quads[src[p]], &quads[src[p+1]]
		e1 := p + 2 + int(q0.end[3])
		if e1+int(q1.end[3]) > len(src) {
			break // truncated: the checked path reports where
		}
		decodeQuadEnding((*[4]uint32)(dst[i:i+4]), src, p+2, q0)
		decodeQuadEnding((*[4]uint32)(dst[i+4:i+8]), src, e1, q1)
		p = e1 + int(q1.end[3])
		i += 8
	}
	// The block's partial last group, a block too short for the loops above,
	// and truncated input.
	_, _, err := decodeGroupsSafe(g8bName, dst, src, i, p, 2, n)
	return err
}
