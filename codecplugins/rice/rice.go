package rice

import (
	"encoding/binary"
	"math/bits"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/internal/bitio"
)

const (
	blockSize = 128
	// maxK is the largest Rice parameter the header may hold.
	maxK = 31
	// escapeQ is the quotient limit: a quotient of escapeQ or more is
	// written as escapeQ zeros, a one, and the raw 32-bit value.
	escapeQ = 32
)

// Rice is Golomb-Rice coding with one parameter k per block, derived from
// the mean of the block's values (see the package doc for the format).
type Rice struct{}

func init() { codecplugins.Register(Rice{}) }

// Name implements codecplugins.Codec.
func (Rice) Name() string { return "rice" }

// BlockSize implements codecplugins.Codec.
func (Rice) BlockSize() int { return blockSize }

// AppendBlock implements codecplugins.Codec.
func (Rice) AppendBlock(dst []byte, v []uint32) []byte {
	return encode(dst, v, meanK(v))
}

// DecodeBlock implements codecplugins.Codec.
func (Rice) DecodeBlock(dst []uint32, src []byte, n int) error {
	return decode("rice", dst, src, n)
}

// meanK returns floor(log2(0.69 * mean(v))), or 0 when that is below one.
func meanK(v []uint32) uint {
	if len(v) == 0 {
		return 0
	}
	var sum uint64 // up to 128 * (2^32-1): needs 64 bits
	for _, x := range v {
		sum += uint64(x)
	}
	b := sum * 69 / (100 * uint64(len(v)))
	if b == 0 {
		return 0
	}
	return min(uint(bits.Len64(b))-1, maxK)
}

// encode appends the block header and the codewords of v with parameter k.
func encode(dst []byte, v []uint32, k uint) []byte {
	if len(v) == 0 {
		return dst
	}
	w := bitio.NewWriter(append(dst, byte(k)))
	mask := uint64(1)<<k - 1
	for _, x := range v {
		q := uint64(x) >> k
		if q < escapeQ {
			w.Write(1<<q, uint(q)+1)
			w.Write(uint64(x)&mask, k)
		} else {
			w.Write(1<<escapeQ, escapeQ+1)
			w.Write(uint64(x), 32)
		}
	}
	return w.Finish()
}

// streamBits returns the length in bits of v's codewords with parameter k,
// header and padding excluded.
func streamBits(v []uint32, k uint) uint {
	var total uint
	for _, x := range v {
		if q := uint(x) >> k; q < escapeQ {
			total += q + 1 + k
		} else {
			total += escapeQ + 1 + 32
		}
	}
	return total
}

// decode decodes n values in the shared rice/optrice format; name labels
// errors.
func decode(name string, dst []uint32, src []byte, n int) error {
	if n == 0 {
		return nil
	}
	if len(src) == 0 {
		return codecplugins.Corrupt(name, 0, "missing header")
	}
	k := uint(src[0])
	if k > maxK {
		return codecplugins.Corrupt(name, 0, "parameter k out of range")
	}
	s := src[1:]
	mask := uint64(1)<<k - 1
	// Quotients below qLimit keep x = q<<k | r within 32 bits.
	qLimit := min(uint(escapeQ), uint(1)<<(32-k))
	p := uint(0)
	for i := 0; i < n; {
		// Load a window at p and decode codewords from it while they
		// lie wholly inside its avail valid bits.
		var w uint64
		if j := p >> 3; j+8 <= uint(len(s)) {
			w = binary.LittleEndian.Uint64(s[j:]) >> (p & 7)
		} else {
			w = bitio.Window(s, p)
		}
		avail := 64 - p&7
		q := uint(bits.TrailingZeros64(w))
		if q < qLimit && q+1+k <= avail {
			for {
				dst[i] = uint32(uint64(q)<<k | (w>>(q+1))&mask)
				c := q + 1 + k
				w >>= c
				avail -= c
				p += c
				i++
				if i == n {
					break
				}
				q = uint(bits.TrailingZeros64(w))
				if q >= qLimit || q+1+k > avail {
					break
				}
			}
			continue
		}
		// A fresh window holds at least 57 valid bits, so the codeword
		// has a long quotient, an escape, or is corrupt.
		switch {
		case q < qLimit:
			p += q + 1
			dst[i] = uint32(uint64(q)<<k | bitio.Window(s, p)&mask)
			p += k
		case q == escapeQ:
			p += escapeQ + 1
			x := uint32(bitio.Window(s, p))
			if x>>k < escapeQ {
				return codecplugins.Corrupt(name, 1+int(p>>3), "escaped value has a short quotient")
			}
			dst[i] = x
			p += 32
		default:
			return codecplugins.Corrupt(name, 1+int(p>>3), "quotient too long")
		}
		i++
	}
	if p > 8*uint(len(s)) {
		return codecplugins.Corrupt(name, len(src), "truncated bit stream")
	}
	return nil
}
