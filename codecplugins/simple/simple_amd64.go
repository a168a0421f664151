//go:build amd64 && !purego

package simple

import "github.com/gpusearch/gpusearch/internal/simd"

//go:generate go run ./internal/gensimd -out simple_amd64.s -stubs simple_amd64_stubs.go

// words16Tables is what decodeWords16AVX2 reads by selector, from its
// first field on: each field's offset and mask, 28 used of 32, and the
// selector's field count (the assembly takes the offsets 0, 2048 and
// 4096 of the three arrays).
type words16Tables struct {
	shifts, masks [16][32]uint32
	fields        [16]uint8
}

// words16 is decodeWords16AVX2's tables, from layouts16.
var words16 = func() *words16Tables {
	t := new(words16Tables)
	for sel, widths := range layouts16 {
		at := uint32(0)
		for j, w := range widths {
			t.shifts[sel][j], t.masks[sel][j] = at, 1<<w-1
			at += uint32(w)
		}
		t.fields[sel] = uint8(len(widths))
	}
	return t
}()

// decodeWords16Asm is DecodeWords16's assembly part, at AVX2, from dst[i:]
// and src[p:]; it returns i and p unmoved where there is none.
func decodeWords16Asm(dst []uint32, src []byte, i, p int) (int, int) {
	if simd.Current() != simd.AVX2 || i+28 > len(dst) || p+4 > len(src) {
		return i, p
	}
	di, dp := decodeWords16AVX2(&dst[i], len(dst)-i, &src[p], len(src)-p, &words16.shifts[0][0])
	return i + di, p + dp
}
