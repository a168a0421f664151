package simple

import (
	"encoding/binary"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// scheme is one word format of the family: Simple-9 or Simple-16.
type scheme struct {
	name    string
	layouts *[16][]uint8 // field widths per selector; nil: no layout
	// fast decodes whole words until one needs care (see fast9).
	fast func(dst []uint32, src []byte, i, p int) (int, int)
	// escape is the word announcing a value in the next word; values
	// above maxPacked are always escaped.
	escape    uint32
	maxPacked uint32
}

// appendBlock encodes v greedily: each word takes the first selector, in
// table order (most fields first), whose layout holds the next values; at
// the end of the block a layout may have more fields than values left,
// and the unused fields are zero.
func (s *scheme) appendBlock(dst []byte, v []uint32) []byte {
	for len(v) > 0 {
		if v[0] > s.maxPacked {
			dst = binary.LittleEndian.AppendUint32(dst, s.escape)
			dst = binary.LittleEndian.AppendUint32(dst, v[0])
			v = v[1:]
			continue
		}
		sel, k := s.pick(v)
		w := uint32(sel) << 28
		shift := uint8(0)
		for j, x := range v[:k] {
			w |= x << shift
			shift += s.layouts[sel][j]
		}
		dst = binary.LittleEndian.AppendUint32(dst, w)
		v = v[k:]
	}
	return dst
}

// pick returns the first selector whose layout holds a prefix of v (all of
// v if it is shorter than the layout) and how many values that is. v[0] is
// at most maxPacked, so the one-field layout, which comes before any
// selector that is no layout, always holds it.
func (s *scheme) pick(v []uint32) (sel, k int) {
	for sel, widths := range s.layouts {
		k = min(len(widths), len(v))
		fits := true
		for j, x := range v[:k] {
			if x>>widths[j] != 0 {
				fits = false
				break
			}
		}
		if fits {
			return sel, k
		}
	}
	panic("simple: no layout holds " + s.name + " value") // unreachable: see above
}

// decodeBlock decodes n values: whole words through the unrolled fast
// path, and here the words it stops at: escapes, the block's partly used
// last word, and bad or truncated input.
func (s *scheme) decodeBlock(dst []uint32, src []byte, n int) error {
	dst = dst[:n]
	i, p := 0, 0
	for {
		i, p = s.fast(dst, src, i, p)
		if i == n {
			return nil
		}
		if p+4 > len(src) {
			return codecplugins.Corrupt(s.name, p, "truncated word")
		}
		w := binary.LittleEndian.Uint32(src[p:])
		p += 4
		if w == s.escape {
			if p+4 > len(src) {
				return codecplugins.Corrupt(s.name, p, "truncated escaped value")
			}
			dst[i] = binary.LittleEndian.Uint32(src[p:])
			p += 4
			i++
			continue
		}
		widths := s.layouts[w>>28]
		if widths == nil {
			return codecplugins.Corrupt(s.name, p-4, "selector is no layout")
		}
		// fast stopped at a valid word, so it holds more fields than
		// values remain: it is the block's last word.
		shift := uint8(0)
		for j := range dst[i:] {
			dst[i+j] = w >> shift & (1<<widths[j] - 1)
			shift += widths[j]
		}
		return nil
	}
}
