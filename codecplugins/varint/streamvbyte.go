package varint

import (
	"encoding/binary"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// StreamVByte is Lemire's Stream VByte: the 2-bit byte lengths of all the
// block's values come first, four to a control byte (value j of each four in
// bits 2j..2j+1, length-1; unused bits of the last control byte zero), then
// all the data bytes, each value in 1 to 4 little-endian bytes. Keeping the
// lengths apart from the data lets the decoder find every value's position
// from the control bytes alone, without waiting on the data.
type StreamVByte struct{}

const svbName = "streamvbyte"

func init() { codecplugins.Register(StreamVByte{}) }

// Name implements codecplugins.Codec.
func (StreamVByte) Name() string { return svbName }

// BlockSize implements codecplugins.Codec.
func (StreamVByte) BlockSize() int { return 128 }

// AppendBlock implements codecplugins.Codec.
func (StreamVByte) AppendBlock(dst []byte, v []uint32) []byte {
	h := len(dst)
	for range (len(v) + 3) / 4 {
		dst = append(dst, 0)
	}
	for j, x := range v {
		k := byteLen(x)
		dst[h+j>>2] |= byte(k-1) << (2 * (j & 3))
		dst = appendLE(dst, x, k)
	}
	return dst
}

// DecodeBlock implements codecplugins.Codec.
func (StreamVByte) DecodeBlock(dst []uint32, src []byte, n int) error {
	dst = dst[:n]
	nc := (n + 3) / 4
	if nc > len(src) {
		return codecplugins.Corrupt(svbName, len(src), "truncated control bytes")
	}
	ctrl := src[:nc]
	full := n / 4
	size := nc
	for _, c := range ctrl[:full] {
		size += int(quads[c].end[3])
	}
	r := n % 4
	if r > 0 {
		size += int(quads[ctrl[full]].end[r-1])
	}
	if size > len(src) {
		return codecplugins.Corrupt(svbName, len(src), "truncated data")
	}
	if nc < 3 {
		// Fewer than 9 values: the first may end before byte 4, too early
		// for loadEnding, so read them byte by byte.
		e := nc
		for j := range n {
			k := int(ctrl[j/4]>>(2*(j%4))&3) + 1
			dst[j] = loadLE(src[e:], k)
			e += k
		}
		return nil
	}
	g, e := 0, nc
	// Groups with 19 bytes of src from their first data byte on: loads
	// start at each value, inside a fixed window the compiler can prove in
	// bounds (offsets <= 12, masked to <= 15, plus 4 bytes).
	for ; g < full && e+19 <= len(src); g++ {
		w := (*[19]byte)(src[e : e+19])
		q := &quads[ctrl[g]]
		d := (*[4]uint32)(dst[4*g : 4*g+4])
		d[0] = binary.LittleEndian.Uint32(w[:]) & q.mask[0]
		d[1] = binary.LittleEndian.Uint32(w[q.off[1]&15:]) & q.mask[1]
		d[2] = binary.LittleEndian.Uint32(w[q.off[2]&15:]) & q.mask[2]
		d[3] = binary.LittleEndian.Uint32(w[q.off[3]&15:]) & q.mask[3]
		e += int(q.end[3])
	}
	// The rest lies inside the checked size: loads end at each value, so
	// none passes the block's last byte.
	for ; g < full; g++ {
		q := &quads[ctrl[g]]
		decodeQuadEnding((*[4]uint32)(dst[4*g:4*g+4]), src, e, q)
		e += int(q.end[3])
	}
	if r > 0 {
		q := &quads[ctrl[full]]
		for j := range r {
			dst[4*full+j] = loadEnding(src, e+int(q.end[j]), q.shift[j])
		}
	}
	return nil
}
