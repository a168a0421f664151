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
//
// Their decoders read each value with one 4-byte load. Where at least 16
// bytes follow the first data byte, the load starts at the value (off) and
// mask keeps its bytes; near the end of src the load ends at the value's last
// byte (end) and shift drops the bytes before it, so nothing past the block
// is touched.
type quad struct {
	off   [4]uint8  // offset of value j from the first data byte
	end   [4]uint8  // offset just past value j; end[3] is the data size
	shift [4]uint8  // 32 - 8*length
	mask  [4]uint32 // the low 8*length bits
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
			t[d].shift[j] = uint8(32 - 8*k)
			t[d].mask[j] = uint32(1<<(8*k) - 1)
		}
	}
	return t
}()

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

// loadEnding reads the value whose last byte is b[e-1] and whose length is
// given by shift (see quad): the top bytes of the 4-byte word ending there.
// The caller guarantees 4 <= e <= len(b).
func loadEnding(b []byte, e int, shift uint8) uint32 {
	return binary.LittleEndian.Uint32(b[e-4:e]) >> (shift & 31)
}

// decodeQuadEnding decodes into d the four values described by q whose data
// start at b[e], with loads that end at each value's last byte. The caller
// guarantees e >= 3 and e+q.end[3] <= len(b).
func decodeQuadEnding(d *[4]uint32, b []byte, e int, q *quad) {
	d[0] = loadEnding(b, e+int(q.end[0]), q.shift[0])
	d[1] = loadEnding(b, e+int(q.end[1]), q.shift[1])
	d[2] = loadEnding(b, e+int(q.end[2]), q.shift[2])
	d[3] = loadEnding(b, e+int(q.end[3]), q.shift[3])
}

// decodeGroupsSafe decodes whole groups into dst[i:] from src[p:], until at
// least stop values (or all of dst) are done, checking every read: the cold
// path for a block's first group and its tail. A group is nd descriptor
// bytes followed by the data of 4*nd values (fewer in the block's last
// group). It returns the new value count and byte offset.
func decodeGroupsSafe(name string, dst []uint32, src []byte, i, p, nd, stop int) (int, int, error) {
	stop = min(stop, len(dst))
	for i < stop {
		if p+nd > len(src) {
			return i, p, codecplugins.Corrupt(name, p, "truncated descriptor")
		}
		desc := src[p : p+nd]
		p += nd
		for j := 0; j < 4*nd && i < len(dst); j++ {
			k := int(desc[j>>2]>>(2*(j&3))&3) + 1
			if p+k > len(src) {
				return i, p, codecplugins.Corrupt(name, p, "truncated value")
			}
			dst[i] = loadLE(src[p:], k)
			p += k
			i++
		}
	}
	return i, p, nil
}
