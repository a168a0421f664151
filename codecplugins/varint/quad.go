package varint

import (
	"encoding/binary"
	"math/bits"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// quad describes the data bytes of four values whose byte lengths are given
// by one descriptor byte holding four 2-bit fields: value j's length minus
// one sits in bits 2j and 2j+1. varint-G4B, varint-G8B and streamvbyte share
// it.
type quad struct {
	off  [4]uint8  // offset of value j from the first data byte
	end  [4]uint8  // offset just past value j; end[3] is the data size
	mask [4]uint32 // the low 8*length bits
}

// quads is the decoding table, indexed by descriptor byte.
var quads = func() (t [256]quad) {
	for d := range t {
		e := 0
		for j := 0; j < 4; j++ {
			k := d>>(2*j)&3 + 1
			t[d].off[j] = uint8(e)
			e += k
			t[d].end[j] = uint8(e)
			t[d].mask[j] = uint32(1<<(8*k) - 1)
		}
	}
	return t
}()

// decodeQuad decodes the four values described by q whose data start at
// w[0], each with one 4-byte load at its offset, masked to its length. The
// window is 19 bytes (offsets up to 12, masked to 15 for the compiler, plus
// 4), so the loads need no bounds checks; bytes past the data are loaded
// and masked off.
func decodeQuad(d *[4]uint32, w *[19]byte, q *quad) {
	d[0] = binary.LittleEndian.Uint32(w[:]) & q.mask[0]
	d[1] = binary.LittleEndian.Uint32(w[q.off[1]&15:]) & q.mask[1]
	d[2] = binary.LittleEndian.Uint32(w[q.off[2]&15:]) & q.mask[2]
	d[3] = binary.LittleEndian.Uint32(w[q.off[3]&15:]) & q.mask[3]
}

// byteLen returns the number of bytes needed for x, 1 to 4.
func byteLen(x uint32) int { return (bits.Len32(x|1) + 7) >> 3 }

// appendLE appends the low k bytes of x, least significant first.
func appendLE(dst []byte, x uint32, k int) []byte {
	dst = append(dst, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
	return dst[:len(dst)-4+k]
}

// loadLE reads the k-byte little-endian value at the start of b.
func loadLE(b []byte, k int) uint32 {
	var x uint32
	for j := k - 1; j >= 0; j-- {
		x = x<<8 | uint32(b[j])
	}
	return x
}

// decodeGroupsSafe decodes the rest of dst, from dst[i:], out of src[p:],
// checking every read: the path for the block's partial last group, for
// what the fast loops leave, and for truncated input. A group is nd
// descriptor bytes followed by the data of 4*nd values (fewer in the
// block's last group).
func decodeGroupsSafe(name string, dst []uint32, src []byte, i, p, nd int) error {
	for i < len(dst) {
		if p+nd > len(src) {
			return codecplugins.Corrupt(name, p, "truncated descriptor")
		}
		desc := src[p : p+nd]
		p += nd
		for j := 0; j < 4*nd && i < len(dst); j++ {
			k := int(desc[j>>2]>>(2*(j&3))&3) + 1
			if p+k > len(src) {
				return codecplugins.Corrupt(name, p, "truncated value")
			}
			dst[i] = loadLE(src[p:], k)
			p += k
			i++
		}
	}
	return nil
}
