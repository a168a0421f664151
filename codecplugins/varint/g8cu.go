package varint

import "github.com/gpusearch/gpusearch/codecplugins"

// G8CU is varint-G8CU (Stepanov et al.'s varint-GU with complete units):
// the values' little-endian bytes (1 to 4 each) form one stream, cut into
// 8-byte units, each preceded by a descriptor byte; a value may begin in one
// unit and end in the next, so no byte is padding. Descriptor bit j is 0
// where data byte j ends a value and 1 elsewhere. The block's last unit
// stops after its last value's byte; its missing bytes' bits are 1.
type G8CU struct{}

const g8cuName = "varint-G8CU"

func init() { codecplugins.Register(G8CU{}) }

// Name implements codecplugins.Codec.
func (G8CU) Name() string { return g8cuName }

// BlockSize implements codecplugins.Codec.
func (G8CU) BlockSize() int { return 128 }

// AppendBlock implements codecplugins.Codec.
func (G8CU) AppendBlock(dst []byte, v []uint32) []byte {
	h, used := 0, 8 // descriptor position and bytes used in the open unit
	for _, x := range v {
		k := byteLen(x)
		for b := 0; b < k; b++ {
			if used == 8 {
				h = len(dst)
				dst = append(dst, 0xFF)
				used = 0
			}
			dst = append(dst, byte(x>>(8*b)))
			used++
		}
		dst[h] &^= 1 << (used - 1)
	}
	return dst
}

// DecodeBlock implements codecplugins.Codec.
func (G8CU) DecodeBlock(dst []uint32, src []byte, n int) error {
	dst = dst[:n]
	i, p := 0, 0
	var carry uint64 // bytes of a value begun in an earlier unit
	cl := 0          // how many
	for i < n {
		if p >= len(src) {
			return codecplugins.Corrupt(g8cuName, p, "truncated descriptor")
		}
		u := &units[src[p]]
		k := int(u.count)
		if k > n-i {
			return codecplugins.Corrupt(g8cuName, p, "unit holds more values than the block")
		}
		// A unit with no ending byte (k == 0) has lead 8 and fails here.
		if u.long || cl+int(u.lead) > 4 {
			return codecplugins.Corrupt(g8cuName, p, "value longer than 4 bytes")
		}
		w, ok := u.load(src, p) // the block's last unit may be shorter than 8 bytes
		if !ok {
			return codecplugins.Corrupt(g8cuName, len(src), "truncated unit")
		}
		first := uint32(carry | (w&uint64(u.mask[0]))<<(8*cl))
		if i+8 <= n {
			// Write all eight slots, unused ones too: the next unit
			// overwrites them, and the loop has no branch on k.
			d := (*[8]uint32)(dst[i : i+8])
			d[0] = first
			d[1] = u.value(w, 1)
			d[2] = u.value(w, 2)
			d[3] = u.value(w, 3)
			d[4] = u.value(w, 4)
			d[5] = u.value(w, 5)
			d[6] = u.value(w, 6)
			d[7] = u.value(w, 7)
		} else {
			dst[i] = first
			for j := 1; j < k; j++ {
				dst[i+j] = u.value(w, j)
			}
		}
		e := int(u.end[k-1])
		carry = w >> (8 * e) // 0 when the unit ends with a value
		cl = 8 - e
		i += k
		p += 9
		if p == 9 {
			// The assembly, where there is one, needs the 4 bytes before
			// a unit: it takes over after the first unit, and leaves the
			// last units and any error to this loop.
			i, p, cl, carry = g8cuAsm(dst, src, i, p, cl, carry)
		}
	}
	return nil
}
