package pfor

import (
	"math/bits"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
)

// FastPFor is the fastpfor codec: the slot width of least size, a byte
// charged to each exception, with an exception area that decodes without
// a word code (FastPFor's layout, kept per block): positions as bytes and
// high parts bit-packed at one width.
// Its format is in the package doc.
type FastPFor struct{}

func init() { codecplugins.Register(FastPFor{}) }

const fastPForName = "fastpfor"

// Name implements codecplugins.Codec.
func (FastPFor) Name() string { return fastPForName }

// BlockSize implements codecplugins.Codec.
func (FastPFor) BlockSize() int { return blockLen }

// AppendBlock implements codecplugins.Codec.
func (FastPFor) AppendBlock(dst []byte, v []uint32) []byte {
	if len(v) == 0 {
		return dst
	}
	b, hb := fastPForWidth(v)
	if hb < 0 {
		dst = append(dst, byte(b))
	} else {
		var pos [blockLen]byte
		var highs [blockLen]uint32
		e := 0
		for i, x := range v {
			if x>>b != 0 {
				pos[e], highs[e] = byte(i), x>>b-1
				e++
			}
		}
		dst = append(dst, byte(b)|hasExceptions, byte(e), byte(hb))
		dst = append(dst, pos[:e]...)
		dst = bitpack.AppendHorizontal(dst, highs[:e], hb)
	}
	if len(v) == blockLen {
		return bitpack.AppendVertical(dst, (*[blockLen]uint32)(v), b)
	}
	return bitpack.AppendHorizontal(dst, v, b)
}

// fastPForWidth returns the slot width b whose block costs least, its
// size plus exceptionCost bytes an exception, and the width hb of its
// exceptions' high parts minus one, or hb = -1 where b leaves no
// exception. Ties go to the larger b, which has fewer exceptions to
// patch. A b whose high parts would need b+hb > 31 is never taken, so
// that no patched value can pass 32 bits; the width of the largest value,
// with no exceptions, is always there.
func fastPForWidth(v []uint32) (b, hb int) {
	h, maxBits := widthHistogram(v)
	var largest uint32
	for _, x := range v {
		largest = max(largest, x)
	}
	b, hb = maxBits, -1
	best := 1 + slotLen(len(v), maxBits)
	e := 0 // values wider than w
	for w := maxBits - 1; w >= 0; w-- {
		e += h[w+1]
		hw := bits.Len32(largest>>w - 1)
		if w+hw > 31 {
			continue
		}
		if l := fastHeader + slotLen(len(v), w) + e + bitpack.HorizontalLen(e, hw) + exceptionCost*e; l < best {
			b, hb, best = w, hw, l
		}
	}
	return b, hb
}

// exceptionCost is what fastPForWidth charges an exception beyond its
// bytes, for the time it takes to patch: with one byte, the RFC passages'
// AND and OR queries took 0.96x and 0.98x the time of the smallest blocks
// (all RFCs 0.96x and 0.95x) in 3.2% more postings (all RFCs 2.3%),
// which keeps every index of ours at most newpfor's size. Two bytes would
// take the passages past it.
const exceptionCost = 1

// fastHeader is the header size of a fastpfor block with exceptions.
const fastHeader = 3

// fastBlock is a checked fastpfor block of n values: slot width b, its
// slots, its exceptions' positions (none where it has none) and their
// high parts minus one, packed hb bits each.
type fastBlock struct {
	b, hb             int
	slots, pos, highs []byte
}

// parse checks the header and the lengths of a fastpfor block of n values,
// 1 <= n <= 128, and splits it into f. It fills f in place: a block
// returned by value was copied twice, 16 bytes at a time over fields just
// stored 8 at a time, which cost a third of a small block's decode.
func (f *fastBlock) parse(src []byte, n int) error {
	if len(src) == 0 {
		return codecplugins.Corrupt(fastPForName, 0, "truncated header")
	}
	f.b, f.hb = int(src[0]), -1
	h, e := 1, 0
	if f.b&hasExceptions != 0 {
		if len(src) < fastHeader {
			return codecplugins.Corrupt(fastPForName, len(src), "truncated header")
		}
		f.b, e, f.hb, h = f.b&^hasExceptions, int(src[1]), int(src[2]), fastHeader
		switch {
		case e == 0:
			return codecplugins.Corrupt(fastPForName, 1, "exception flag with no exceptions")
		case e > n:
			return codecplugins.Corrupt(fastPForName, 1, "more exceptions than values")
		case f.b+f.hb > 31:
			return codecplugins.Corrupt(fastPForName, 2, "exceptions wider than 32 bits")
		}
	}
	if f.b > bitpack.MaxWidth {
		return codecplugins.Corrupt(fastPForName, 0, "bit width above 32")
	}
	at := h
	if e > 0 {
		at += e + bitpack.HorizontalLen(e, f.hb)
	}
	sl := slotLen(n, f.b)
	if len(src) < at+sl {
		return codecplugins.Corrupt(fastPForName, len(src), "truncated block")
	}
	f.slots = src[at : at+sl]
	f.pos, f.highs = src[h:h+e], src[h+e:at+sl] // the slots after the high parts pad their loads
	return nil
}

// positionsOK reports whether f's exception positions increase strictly
// and stay below n, as the patching code requires.
func (f *fastBlock) positionsOK(n int) bool {
	prev := -1
	for _, p := range f.pos {
		if int(p) <= prev {
			return false
		}
		prev = int(p)
	}
	return prev < n
}

// padded reports whether 7 bytes of the block follow its high parts (the
// slots do), so that each can be read with a 64-bit load.
func (f *fastBlock) padded() bool { return len(f.slots) >= 8 }

// highParts writes each exception's high part plus one into hi, reading
// the packed high parts a byte at a time.
func (f *fastBlock) highParts(hi *[blockLen]uint32) {
	mask := uint64(1)<<f.hb - 1
	var buf uint64
	have, next := 0, 0
	for i := range f.pos {
		for have < f.hb {
			buf |= uint64(f.highs[next]) << have
			next++
			have += 8
		}
		hi[i] = uint32(buf&mask + 1)
		buf >>= f.hb
		have -= f.hb
	}
}

// patchedPrefixGo is patchedPrefix in Go, with patch zeroed: the high
// parts are scattered into it, and bitpack's patched decoder adds it.
func patchedPrefixGo(dst *[blockLen]uint32, f *fastBlock, base uint32, patch *[blockLen]uint32) (uint64, bool) {
	if !f.positionsOK(blockLen) {
		return 0, false
	}
	var hi [blockLen]uint32
	f.highParts(&hi)
	var sum uint64
	for i, p := range f.pos {
		patch[p] = hi[i]
		sum += uint64(hi[i])
	}
	bitpack.UnpackVerticalPatchedPrefix(dst, f.slots, f.b, patch, base)
	return sum, true
}

// patchValuesGo adds f's exceptions to the len(dst) values of a block of
// any length, its slots decoded: decodePatched's last step in Go; it
// reports false where the positions do not increase strictly below
// len(dst).
func patchValuesGo(dst []uint32, f *fastBlock) bool {
	if !f.positionsOK(len(dst)) {
		return false
	}
	var hi [blockLen]uint32
	f.highParts(&hi)
	for i, p := range f.pos {
		dst[p] += hi[i] << f.b
	}
	return true
}

// DecodeBlock implements codecplugins.Codec. A full block is unpacked by
// bp128's kernel and its exceptions added after, in assembly where the
// CPU has it (decodePatched).
func (FastPFor) DecodeBlock(dst []uint32, src []byte, n int) error {
	if n < 0 || n > blockLen {
		return codecplugins.Corrupt(fastPForName, 0, "value count out of range")
	}
	if n == 0 {
		return nil
	}
	var f fastBlock
	if err := f.parse(src, n); err != nil {
		return err
	}
	ok := true
	switch {
	case len(f.pos) == 0:
		unpackSlots(dst, f.slots, n, f.b, vertical)
	case n == blockLen:
		ok = decodePatched((*[blockLen]uint32)(dst), &f)
	default:
		bitpack.UnpackHorizontal(dst[:n], f.slots, f.b)
		ok = patchValuesGo(dst[:n], &f)
	}
	if !ok {
		return fastPositionsCorrupt()
	}
	return nil
}

// DecodeBlockPrefix implements codecplugins.PrefixDecoder. A full block
// without exceptions is a bp128 block and decodes in bp128's one assembly
// call; one with exceptions has its high parts scattered into a patch,
// which bp128's kernel adds as it unpacks and sums (patchedPrefix). Where
// the sums might pass 2^32-1, and for a partial block, it decodes and sums
// in 64 bits (codecplugins.DecodePrefix), which finds the overflow.
func (c FastPFor) DecodeBlockPrefix(dst []uint32, src []byte, n int, base uint32) error {
	if n != blockLen || len(dst) < blockLen {
		return codecplugins.DecodePrefix(c, fastPForName, dst, src, n, base)
	}
	full := (*[blockLen]uint32)(dst)
	if len(src) > 0 && src[0]&hasExceptions == 0 && bitpack.DecodeVerticalBlockPrefixSIMD(full, src, base) {
		return nil
	}
	var f fastBlock
	if err := f.parse(src, n); err != nil {
		return err
	}
	if len(f.pos) == 0 {
		if !sumsFit(base, f.b, 0) {
			return codecplugins.DecodePrefix(c, fastPForName, dst, src, n, base)
		}
		bitpack.UnpackVerticalPrefix(full, f.slots, f.b, base)
		return nil
	}
	highs, ok := patchedPrefix(full, &f, base)
	if !ok {
		return fastPositionsCorrupt()
	}
	if !sumsFit(base, f.b, highs<<f.b) {
		// The sums wrapped: decoded again, the overflow found.
		return codecplugins.DecodePrefix(c, fastPForName, dst, src, n, base)
	}
	return nil
}

// fastPositionsCorrupt is the error for a block whose exception positions
// are out of order or range.
func fastPositionsCorrupt() error {
	return codecplugins.Corrupt(fastPForName, fastHeader, "exception position out of order or range")
}
