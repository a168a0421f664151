package varint

import (
	"encoding/binary"
	"math/bits"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/internal/simd"
)

// StreamVByte is Lemire's Stream VByte: the 2-bit byte lengths of all the
// block's values come first, four to a control byte (value j of each four in
// bits 2j..2j+1, length-1; unused bits of the last control byte zero), then
// all the data bytes, each value in 1 to 4 little-endian bytes. Keeping the
// lengths apart from the data lets the decoder find every value's position
// from the control bytes alone, without waiting on the data. It is a
// codecplugins.PrefixDecoder.
//
// Its one field, never set, makes the type pointer-shaped: an interface
// then holds the value itself, and its method table calls DecodeBlock
// directly, where a zero-size type's goes through a generated wrapper,
// one more call per block.
type StreamVByte struct{ _ *byte }

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

// DecodeBlock implements codecplugins.Codec. A full block, at a SIMD
// level, takes one assembly call, which checks src's length itself; all
// it refuses is a src too short for the block, whose error depends on
// len(src) alone (svbTruncated), so that nothing but that length is live
// across the call. svbDecode, the pure-Go path, takes every other block.
func (StreamVByte) DecodeBlock(dst []uint32, src []byte, n int) error {
	// The level first, so that the Go level pays one test for the path
	// it does not take.
	if lv := simd.Current(); lv != simd.Go && n == 128 && len(dst) >= 128 {
		if svbBlockAsm((*[128]uint32)(dst), src, lv) {
			return nil
		}
		return svbTruncated(len(src))
	}
	return svbDecode(dst, src, n)
}

// svbTruncated is svbDecode's error for a full block that src, of m
// bytes, is too short for: its control bytes or its data.
func svbTruncated(m int) error {
	if m < 32 {
		return codecplugins.Corrupt(svbName, m, "truncated control bytes")
	}
	return codecplugins.Corrupt(svbName, m, "truncated data")
}

// svbDecode is DecodeBlock's pure-Go path: every block at the Go level,
// partial blocks, and the full blocks the assembly refuses (src too
// short), which it reports.
func svbDecode(dst []uint32, src []byte, n int) error {
	dst = dst[:n]
	nc := (n + 3) / 4
	if nc > len(src) {
		return codecplugins.Corrupt(svbName, len(src), "truncated control bytes")
	}
	ctrl := src[:nc]
	full := n / 4
	fullEnd := nc + dataLen(ctrl[:full]) // just past the full groups' data
	size := fullEnd
	r := n % 4
	if r > 0 {
		size += int(quads[ctrl[full]].end[r-1])
	}
	if size > len(src) {
		return codecplugins.Corrupt(svbName, len(src), "truncated data")
	}
	// The assembly, where there is one, decodes the full groups of all
	// but short blocks, in the bounds just checked.
	g, e := 0, nc
	if svbAsm(dst, ctrl[:full], src[nc:fullEnd]) {
		g, e = full, fullEnd
	}
	// Groups with a whole load window of src from their first data byte.
	for ; g < full && e+19 <= len(src); g++ {
		q := &quads[ctrl[g]]
		decodeQuad((*[4]uint32)(dst[4*g:4*g+4]), (*[19]byte)(src[e:e+19]), q)
		e += int(q.end[3])
	}
	if g < full {
		// Fewer than 19 bytes are left, so the remaining groups start in
		// the first 15: decode them from a zero-padded copy.
		var buf [40]byte
		copy(buf[:19], src[e:size])
		b := 0
		for ; g < full; g++ {
			q := &quads[ctrl[g]]
			decodeQuad((*[4]uint32)(dst[4*g:4*g+4]), (*[19]byte)(buf[b:b+19]), q)
			b += int(q.end[3])
		}
		e += b
	}
	if r > 0 {
		// The partial last group, whose size was checked above.
		q := &quads[ctrl[full]]
		for j := range r {
			dst[4*full+j] = loadLE(src[e+int(q.off[j]):], int(q.end[j]-q.off[j]))
		}
	}
	return nil
}

// DecodeBlockPrefix implements codecplugins.PrefixDecoder. A full block
// whose sums cannot pass 2^32-1 (no four-byte value, base at most
// 2^32-1 - 128*(2^24-1)) is decoded and summed in one assembly call where
// there is one; any other block is decoded and then summed in 64 bits,
// which finds the overflow.
func (c StreamVByte) DecodeBlockPrefix(dst []uint32, src []byte, n int, base uint32) error {
	if n == 128 && len(dst) >= 128 && svbBlockPrefixAsm((*[128]uint32)(dst), src, base) {
		return nil
	}
	return codecplugins.DecodePrefix(c, svbName, dst, src, n, base)
}

// dataLen returns the number of data bytes of the groups whose control
// bytes are ctrl. A group takes 4 bytes plus the sum of its four 2-bit
// fields, and the fields of eight control bytes add up with two popcounts:
// the low bits count once, the high bits twice.
func dataLen(ctrl []byte) int {
	n := 4 * len(ctrl)
	for ; len(ctrl) >= 8; ctrl = ctrl[8:] {
		w := binary.LittleEndian.Uint64(ctrl)
		n += bits.OnesCount64(w&0x5555555555555555) + 2*bits.OnesCount64(w&0xAAAAAAAAAAAAAAAA)
	}
	for _, c := range ctrl {
		n += int(quads[c].end[3]) - 4
	}
	return n
}
