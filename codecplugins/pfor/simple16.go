package pfor

import (
	"encoding/binary"

	"github.com/gpusearch/gpusearch/codecplugins/simple"
)

// s16Layouts lists, for each selector, the bit width of each field of a
// simple16 word, lowest field first. Every layout uses at most 28 bits.
var s16Layouts = [16][]uint8{
	fields(28, 1),
	fields(7, 2, 14, 1),
	fields(7, 1, 7, 2, 7, 1),
	fields(14, 1, 7, 2),
	fields(14, 2),
	fields(1, 4, 8, 3),
	fields(1, 3, 4, 4, 3, 3),
	fields(7, 4),
	fields(4, 5, 2, 4),
	fields(2, 4, 4, 5),
	fields(3, 6, 2, 5),
	fields(2, 5, 3, 6),
	fields(4, 7),
	fields(1, 10, 2, 9),
	fields(2, 14),
	fields(1, 28),
}

// s16Max is the largest value simple16 can hold.
const s16Max = 1<<28 - 1

// fields expands (count, width) pairs into a list of widths.
func fields(runs ...int) []uint8 {
	var w []uint8
	for i := 0; i < len(runs); i += 2 {
		for range runs[i] {
			w = append(w, uint8(runs[i+1]))
		}
	}
	return w
}

// s16Pick returns the first selector whose layout holds a prefix of v
// (all of v if it is shorter than the layout) and how many values it takes.
// Every value must be at most s16Max.
func s16Pick(v []uint32) (sel, k int) {
	for sel, widths := range s16Layouts {
		k = min(len(widths), len(v))
		fits := true
		for i, x := range v[:k] {
			if x>>widths[i] != 0 {
				fits = false
				break
			}
		}
		if fits {
			return sel, k
		}
	}
	panic("pfor: value above simple16's 28 bits") // excluded by the choice of b
}

// s16Append appends the simple16 coding of v to dst.
func s16Append(dst []byte, v []uint32) []byte {
	for len(v) > 0 {
		sel, k := s16Pick(v)
		w := uint32(sel) << 28
		shift := uint8(0)
		for i, x := range v[:k] {
			w |= x << shift
			shift += s16Layouts[sel][i]
		}
		dst = binary.LittleEndian.AppendUint32(dst, w)
		v = v[k:]
	}
	return dst
}

// s16Len returns the number of bytes s16Append would write for v.
func s16Len(v []uint32) int {
	n := 0
	for len(v) > 0 {
		_, k := s16Pick(v)
		n += 4
		v = v[k:]
	}
	return n
}

// s16MaxFields is the largest number of fields in a simple16 word.
const s16MaxFields = 28

// s16Decode decodes n values from the simple16 words at the start of src
// into dst[:n]; it may write up to s16MaxFields-1 more values after them, so
// len(dst) >= n+s16MaxFields-1. It reports false if src ends first.
func s16Decode(dst []uint32, n int, src []byte) bool {
	// The unrolled decoder takes whole words into the room the caller
	// leaves, the last, partly used word included. With room for any word
	// left, it stops only at the end of src or at the word 0xFFFFFFFF,
	// which package simple reads as its escape and which is here one field
	// of s16Max.
	room := dst[:n+s16MaxFields-1]
	i, p := simple.DecodeWords16(room, src, 0, 0)
	for i < n {
		if len(src)-p < 4 {
			return false
		}
		dst[i] = s16Max
		i, p = simple.DecodeWords16(room, src, i+1, p+4)
	}
	return true
}
