package varint

import "encoding/binary"

// unit describes one descriptor byte of varint-G8IU and varint-G8CU. Bit j
// stands for data byte j: 0 if the byte ends a value, 1 if the value goes on
// (or, in G8IU, if the byte is padding). A value's length in bytes is thus
// written in unary, one bit per byte, as Stepanov et al. define varint-GU.
type unit struct {
	count uint8     // values that end in the group: the descriptor's zero bits
	lead  uint8     // bytes up to and including the first ending byte (8 if none)
	long  bool      // a value after the first spans more than 4 bytes
	end   [8]uint8  // offset just past value j's last byte in the group
	shift [8]uint8  // 8 * offset of value j's first byte in the group
	mask  [8]uint32 // the low 8*length bits of value j (0 past count)
}

// units is the decoding table, indexed by descriptor byte.
var units = func() (t [256]unit) {
	for d := range t {
		u := &t[d]
		start := 0
		for b := 0; b < 8; b++ {
			if d>>b&1 != 0 {
				continue
			}
			k := b + 1 - start
			j := u.count
			if j == 0 {
				u.lead = uint8(k)
			} else if k > 4 {
				u.long = true
			}
			u.end[j] = uint8(b + 1)
			u.shift[j] = uint8(8 * start)
			u.mask[j] = uint32(1<<(8*min(k, 4)) - 1)
			u.count++
			start = b + 1
		}
		if u.count == 0 {
			u.lead = 8
		}
	}
	return t
}()

// load returns the unit's 8 data bytes, after its descriptor at src[p], as
// a little-endian word. ok is false if src ends before the unit's last
// value does. The unit must end at least one value.
func (u *unit) load(src []byte, p int) (w uint64, ok bool) {
	if p+9 <= len(src) {
		return binary.LittleEndian.Uint64(src[p+1 : p+9]), true
	}
	return u.loadLast(src, p)
}

// loadLast is load for the block's last unit, which may stop short of 8
// bytes: the missing bytes read as zero.
func (u *unit) loadLast(src []byte, p int) (w uint64, ok bool) {
	if p+1+int(u.end[u.count-1]) > len(src) {
		return 0, false
	}
	var b [8]byte
	copy(b[:], src[p+1:])
	return binary.LittleEndian.Uint64(b[:]), true
}

// value returns the bytes of value j that lie in the unit whose data word
// is w.
func (u *unit) value(w uint64, j int) uint32 {
	return uint32(w>>(u.shift[j]&63)) & u.mask[j]
}
