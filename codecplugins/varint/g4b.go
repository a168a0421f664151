package varint

import (
	"encoding/binary"

	"github.com/gpusearch/gpusearch/codecplugins"
)

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
	i, p := 0, 0
	// Whole groups with 19 bytes of src from the descriptor on: loads start
	// at each value, inside a fixed window the compiler can prove in bounds
	// (offsets <= 13, masked to <= 15, plus 4 bytes).
	for i+4 <= n && p+19 <= len(src) {
		w := (*[19]byte)(src[p : p+19])
		q := &quads[w[0]]
		d := (*[4]uint32)(dst[i : i+4])
		d[0] = binary.LittleEndian.Uint32(w[1:]) & q.mask[0]
		d[1] = binary.LittleEndian.Uint32(w[(1+q.off[1])&15:]) & q.mask[1]
		d[2] = binary.LittleEndian.Uint32(w[(1+q.off[2])&15:]) & q.mask[2]
		d[3] = binary.LittleEndian.Uint32(w[(1+q.off[3])&15:]) & q.mask[3]
		p += 1 + int(q.end[3])
		i += 4
	}
	// Near the end of src: whole groups, checked to be there, read with
	// loads that end at each value, so none passes the group's last byte.
	for i+4 <= n && p >= 3 && p < len(src) {
		q := &quads[src[p]]
		if p+1+int(q.end[3]) > len(src) {
			break // truncated: the checked path reports where
		}
		decodeQuadEnding((*[4]uint32)(dst[i:i+4]), src, p+1, q)
		p += 1 + int(q.end[3])
		i += 4
	}
	// The block's partial last group, a block too short for the loops above,
	// and truncated input.
	_, _, err := decodeGroupsSafe(g4bName, dst, src, i, p, 1, n)
	return err
}
