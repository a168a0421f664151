package varint

import "github.com/gpusearch/gpusearch/codecplugins"

// G8IU is varint-G8IU (Stepanov et al.'s varint-GU with incomplete units):
// values go in 9-byte groups, one descriptor byte then 8 data bytes. As many
// whole values as fit (2 to 8) are written little-endian into the 8 bytes;
// a value that does not fit starts the next group, and the bytes left over
// are zero padding. The descriptor gives each value's length in unary: bit j
// is 0 where data byte j ends a value and 1 elsewhere, padding included.
// The block's last group stops after its last value's byte, unpadded.
type G8IU struct{}

const g8iuName = "varint-G8IU"

func init() { codecplugins.Register(G8IU{}) }

// Name implements codecplugins.Codec.
func (G8IU) Name() string { return g8iuName }

// BlockSize implements codecplugins.Codec.
func (G8IU) BlockSize() int { return 128 }

// AppendBlock implements codecplugins.Codec.
func (G8IU) AppendBlock(dst []byte, v []uint32) []byte {
	for len(v) > 0 {
		h := len(dst)
		dst = append(dst, 0xFF)
		used := 0
		for len(v) > 0 {
			k := byteLen(v[0])
			if used+k > 8 {
				break
			}
			dst = appendLE(dst, v[0], k)
			used += k
			dst[h] &^= 1 << (used - 1)
			v = v[1:]
		}
		if len(v) > 0 {
			for ; used < 8; used++ {
				dst = append(dst, 0)
			}
		}
	}
	return dst
}

// DecodeBlock implements codecplugins.Codec.
func (G8IU) DecodeBlock(dst []uint32, src []byte, n int) error {
	dst = dst[:n]
	// The assembly, where there is one, decodes all but the last groups;
	// the loop below takes the rest, and any error.
	i, p := g8iuAsm(dst, src)
	for i < n {
		if p >= len(src) {
			return codecplugins.Corrupt(g8iuName, p, "truncated descriptor")
		}
		u := &units[src[p]]
		k := int(u.count)
		if k == 0 {
			return codecplugins.Corrupt(g8iuName, p, "group holds no value")
		}
		if k > n-i {
			return codecplugins.Corrupt(g8iuName, p, "group holds more values than the block")
		}
		if u.long || u.lead > 4 {
			return codecplugins.Corrupt(g8iuName, p, "value longer than 4 bytes")
		}
		w, ok := u.load(src, p) // the block's last group is unpadded
		if !ok {
			return codecplugins.Corrupt(g8iuName, len(src), "truncated group")
		}
		if i+8 <= n {
			// Write all eight slots, unused ones too: the next group
			// overwrites them, and the loop has no branch on k.
			d := (*[8]uint32)(dst[i : i+8])
			d[0] = uint32(w) & u.mask[0]
			d[1] = u.value(w, 1)
			d[2] = u.value(w, 2)
			d[3] = u.value(w, 3)
			d[4] = u.value(w, 4)
			d[5] = u.value(w, 5)
			d[6] = u.value(w, 6)
			d[7] = u.value(w, 7)
		} else {
			for j := range k {
				dst[i+j] = u.value(w, j)
			}
		}
		i += k
		p += 9
	}
	return nil
}
