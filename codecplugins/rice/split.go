package rice

import (
	"math/bits"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
	"github.com/gpusearch/gpusearch/codecplugins/internal/bitio"
)

// The split codecs are the first paper's Rice-Hor, Rice-Ver, OptRice-Hor
// and OptRice-Ver: the same k as rice and optrice, but a block keeps its
// values' low parts apart from their quotients, so that SIMD unpacks the
// low parts as bit packing does and only the unary quotients are read bit
// by bit. A block of n values (n = 0: nothing):
//
//	byte 0       k, 0..31
//	low parts    the k low bits of every value: 16*k bytes in the 4-way
//	             vertical layout of package bitpack (-ver) or its
//	             horizontal layout (-hor) when n == 128, else
//	             ceil(n*k/8) bytes horizontal
//	quotients    an LSB-first bit stream, per value q = x >> k: q zero
//	             bits and a one bit when q < 32, else 32 zero bits, a one
//	             bit and q in 32-k bits; zero bits pad it to a whole byte
//
// The block takes the interleaved format's bits but for one more byte of
// padding at most. As there, an escape is valid only for q >= 32, so a
// block has one encoding for a given k, and q << k must fit in 32 bits.

// split is one split codec: its name, how it picks k, and its layout.
type split struct {
	name       string
	pick       func(v []uint32) uint
	horizontal bool
}

func init() {
	for _, s := range []split{
		{"rice-hor", meanK, true}, {"rice-ver", meanK, false},
		{"optrice-hor", optK, true}, {"optrice-ver", optK, false},
	} {
		codecplugins.Register(s)
	}
}

// Name implements codecplugins.Codec.
func (s split) Name() string { return s.name }

// BlockSize implements codecplugins.Codec.
func (split) BlockSize() int { return blockSize }

// AppendBlock implements codecplugins.Codec.
func (s split) AppendBlock(dst []byte, v []uint32) []byte {
	if len(v) == 0 {
		return dst
	}
	k := s.pick(v)
	dst = append(dst, byte(k))
	var low [blockSize]uint32
	for i, x := range v {
		low[i] = x & (1<<k - 1)
	}
	if len(v) == blockSize && !s.horizontal {
		dst = bitpack.AppendVertical(dst, &low, int(k))
	} else {
		dst = bitpack.AppendHorizontal(dst, low[:len(v)], int(k))
	}
	w := bitio.NewWriter(dst)
	for _, x := range v {
		if q := uint64(x) >> k; q < escapeQ {
			w.Unary(q)
		} else {
			w.Unary(escapeQ)
			w.Write(q, 32-k)
		}
	}
	return w.Finish()
}

// DecodeBlock implements codecplugins.Codec.
func (s split) DecodeBlock(dst []uint32, src []byte, n int) error {
	if n < 0 || n > blockSize || len(dst) < n {
		return codecplugins.Corrupt(s.name, 0, "value count out of range")
	}
	if n == 0 {
		return nil
	}
	if len(src) == 0 {
		return codecplugins.Corrupt(s.name, 0, "missing header")
	}
	k := uint(src[0])
	if k > maxK {
		return codecplugins.Corrupt(s.name, 0, "parameter k out of range")
	}
	lowLen := bitpack.HorizontalLen(n, int(k))
	if len(src) < 1+lowLen {
		return codecplugins.Corrupt(s.name, len(src), "truncated low parts")
	}
	// The quotients go to q first: dst is written only once the block
	// proves whole.
	var q [blockSize]uint32
	if at, problem := quotients(q[:n], src[1+lowLen:], k); problem != "" {
		return codecplugins.Corrupt(s.name, 1+lowLen+at, problem)
	}
	low, d := src[1:1+lowLen], dst[:n]
	switch {
	case n == blockSize && s.horizontal:
		bitpack.UnpackHorizontalBlock((*[blockSize]uint32)(d), low, int(k))
	case n == blockSize:
		bitpack.UnpackVertical((*[blockSize]uint32)(d), low, int(k))
	default:
		bitpack.UnpackHorizontal(d, low, int(k))
	}
	for i := range d {
		d[i] |= q[i] << k
	}
	return nil
}

// quotients decodes len(q) unary quotients from s, checking that each
// keeps q << k within 32 bits. A corrupt stream gives the problem and
// its byte offset in s; a sound one an empty problem.
func quotients(q []uint32, s []byte, k uint) (at int, problem string) {
	qLimit := min(uint(escapeQ), uint(1)<<(32-k)) // quotients below it need no escape and fit
	p := uint(0)
	for i := 0; i < len(q); {
		// Every set bit of a window ends a quotient: visit them in
		// order, clearing each, while the quotients are short. A loaded
		// window's bits are all valid (zeros past the end of s).
		w := bitio.Window(s, p)
		run := uint(0) // where the current quotient's zeros start, in w
		for w != 0 && i < len(q) {
			t := uint(bits.TrailingZeros64(w))
			if t-run >= qLimit {
				break
			}
			q[i] = uint32(t - run)
			run = t + 1
			w &= w - 1
			i++
		}
		p += run
		if i == len(q) || w == 0 && run > 0 {
			continue // done, or the next quotient runs past the window
		}
		// A long quotient (or a window of zeros, which holds at least 57
		// valid bits where 8 bytes remain): an escape, a quotient that
		// overflows, or a corrupt run.
		switch z := uint(bits.TrailingZeros64(bitio.Window(s, p))); {
		case z == escapeQ:
			p += escapeQ + 1
			x := bitio.Window(s, p) & (1<<(32-k) - 1)
			if x < escapeQ {
				return int(p >> 3), "escaped quotient out of range"
			}
			q[i] = uint32(x)
			p += 32 - k
			i++
		case z < escapeQ:
			return int(p >> 3), "value overflows 32 bits"
		default:
			return int(p >> 3), "quotient too long"
		}
		if p > 8*uint(len(s)) {
			break
		}
	}
	if p > 8*uint(len(s)) {
		return len(s), "truncated quotients"
	}
	return 0, ""
}
