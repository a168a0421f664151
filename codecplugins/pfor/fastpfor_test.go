package pfor

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
	"github.com/gpusearch/gpusearch/internal/gentest"
	"github.com/gpusearch/gpusearch/internal/simd"
)

func TestFastPForWidth(t *testing.T) {
	tests := []struct {
		name  string
		v     []uint32
		b, hb int
	}{
		{"empty", nil, 0, -1},
		{"zeros", block(128, 0), 0, -1},
		{"uniform width", block(128, 5, 7), 3, -1},
		// 16 bytes a bit of width against 3+1+3 for the outlier.
		{"one large outlier", block(128, 1, 1<<20), 1, 19},
		{"short block", block(3, 2, 1), 2, -1},
		// Ten 3-bit values among 2-bit ones: b=2 is 45 bytes against 49,
		// but its exceptions cost 10 more.
		{"exceptions that save too little", block(128, 2, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5), 3, -1},
		{"exceptions that save enough", block(128, 2, 5, 5, 5), 2, 0},
		// 2^32-1 at b=31 is a high part of 1, stored as 0 in 0 bits; at
		// b=30 its stored high part, 2, would need b+hb = 32.
		{"32-bit outlier", block(128, 1, math.MaxUint32), 31, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if b, hb := fastPForWidth(tt.v); b != tt.b || hb != tt.hb {
				t.Errorf("fastPForWidth = %d, %d; want %d, %d", b, hb, tt.b, tt.hb)
			}
		})
	}
}

// TestFastPForMinimal checks on random blocks that the encoding costs the
// least of every width the format allows, its size plus exceptionCost
// bytes an exception, the sizes worked out here from the format alone.
func TestFastPForMinimal(t *testing.T) {
	eachRandomBlock(t, 7, 8, func(t *testing.T, v []uint32) {
		enc := FastPFor{}.AppendBlock(nil, v)
		cost := len(enc)
		if enc[0]&hasExceptions != 0 {
			cost += exceptionCost * int(enc[1])
		}
		for b := 0; b <= bitpack.MaxWidth; b++ {
			var e int
			var largest uint32
			for _, x := range v {
				if x>>b != 0 {
					e++
					largest = max(largest, x>>b-1)
				}
			}
			size := 1 + slotLen(len(v), b)
			if e > 0 {
				hb := bits.Len32(largest)
				if b+hb > 31 {
					continue
				}
				size += 2 + e + bitpack.HorizontalLen(e, hb) + exceptionCost*e
			}
			if size < cost {
				t.Fatalf("block costs %d, but width %d costs %d", cost, b, size)
			}
		}
	})
}

func TestFastPForFormat(t *testing.T) {
	outlier := block(16, 1)
	outlier[2] = 1000
	tests := []struct {
		name string
		v    []uint32
		want []byte
	}{
		{"no exceptions", []uint32{1, 0, 9}, []byte{4, 0x01, 0x09}},
		// b=1, one exception at 2: high part 500, minus one 499 in 9 bits,
		// then the 16 low bits.
		{"one exception", outlier, []byte{0x81, 1, 9, 2, 0xF3, 0x01, 0xFB, 0xFF}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { codectest.Format(t, FastPFor{}, tt.v, tt.want) })
	}
}

func TestFastPForCorrupt(t *testing.T) {
	zeros := func(n int) []byte { return make([]byte, n) }
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	tests := []struct {
		name string
		src  []byte
		n    int
	}{
		{"negative n", []byte{0, 0}, -1},
		{"n above block", []byte{0, 0}, 129},
		{"no header", nil, 3},
		{"flag without count", []byte{0x81, 1}, 3},
		{"flag with zero count", cat([]byte{0x81, 0, 0}, zeros(8)), 3},
		{"width 33", cat([]byte{33}, zeros(200)), 3},
		{"too many exceptions", cat([]byte{0x80, 4, 0}, zeros(8)), 3},
		{"high parts past bit 31", cat([]byte{0x80 | 30, 1, 2}, zeros(600)), 128},
		{"truncated slots", cat([]byte{5}, zeros(16*5-1)), 128},
		{"truncated exceptions", []byte{0x81, 2, 1, 0}, 3},
		{"positions not increasing", cat([]byte{0x81, 2, 0, 1, 1}, zeros(2)), 16},
		{"position past n", cat([]byte{0x81, 1, 0, 5}, zeros(1)), 3},
		{"full block, positions not increasing", cat([]byte{0x81, 2, 0, 7, 3}, zeros(16)), 128},
		{"full block, position past 127", cat([]byte{0x81, 1, 0, 200}, zeros(16)), 128},
		{"full block, second position past 127", cat([]byte{0x81, 2, 0, 3, 130}, zeros(16)), 128},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, lv := range simd.Levels() {
				simd.Run(lv, func() {
					requireCorrupt(t, "DecodeBlock", tt.src, tt.n, func(dst []uint32) error {
						return FastPFor{}.DecodeBlock(dst, tt.src, tt.n)
					})
					requireCorrupt(t, "DecodeBlockPrefix", tt.src, tt.n, func(dst []uint32) error {
						return FastPFor{}.DecodeBlockPrefix(dst, tt.src, tt.n, 0)
					})
				})
			}
		})
	}
}

// TestFastPForLevels decodes random full blocks with exceptions of every
// count and high width at every SIMD level, values and running sums, and
// requires the pure-Go level's results: the assembly's scatter and patch
// against Go's.
func TestFastPForLevels(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, e := range []int{1, 2, 7, 16, 64, 128} {
		for _, hb := range []int{0, 1, 5, 13, 24} {
			v := make([]uint32, blockLen)
			for i := range v {
				v[i] = uint32(rng.IntN(8))
			}
			for _, p := range rng.Perm(blockLen)[:e] {
				v[p] = uint32(8+rng.IntN(8)) << hb
			}
			enc := FastPFor{}.AppendBlock(nil, v)
			var want, wantSums [blockLen]uint32
			var sumsErr error // sums past 2^32-1 are an error at every level
			simd.Run(simd.Go, func() {
				if err := (FastPFor{}).DecodeBlock(want[:], enc, blockLen); err != nil {
					t.Fatal(err)
				}
				sumsErr = FastPFor{}.DecodeBlockPrefix(wantSums[:], enc, blockLen, 77)
			})
			if want != [blockLen]uint32(v) {
				t.Fatalf("e=%d hb=%d: level Go decodes %v, want %v", e, hb, want, v)
			}
			for _, lv := range simd.Levels()[1:] {
				var got, sums [blockLen]uint32
				var err error
				simd.Run(lv, func() {
					_ = FastPFor{}.DecodeBlock(got[:], enc, blockLen)
					err = FastPFor{}.DecodeBlockPrefix(sums[:], enc, blockLen, 77)
				})
				if got != want || (err == nil) != (sumsErr == nil) || (err == nil && sums != wantSums) {
					t.Fatalf("e=%d hb=%d, %s: values or sums differ from level Go's", e, hb, lv)
				}
			}
		}
	}
}

// TestFastPForGoldenSize pins the encoded size of a fixed list so that a
// format change cannot slip through unnoticed.
func TestFastPForGoldenSize(t *testing.T) { codectest.ClusteredSize(t, FastPFor{}, 1000, 510) }

func FuzzDecodeFastPFor(f *testing.F) {
	outlier := block(blockLen, 1, 0, 1<<20, 3, 1<<9)
	for _, v := range [][]uint32{block(3, 2, 1), block(16, 1, 1, 1000), outlier, block(blockLen, 0, 7)} {
		f.Add(FastPFor{}.AppendBlock(nil, v), len(v))
	}
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		codectest.Fuzz(FastPFor{}, data, n)
		codectest.FuzzLevels(FastPFor{}, data, n) // DecodeBlockPrefix too
	})
}

// TestAsmUpToDate requires the assembly and its stubs to be what gensimd
// writes today.
func TestAsmUpToDate(t *testing.T) {
	gentest.UpToDateFiles(t, "./internal/gensimd", map[string]string{
		"out":   "patch_amd64.s",
		"stubs": "patch_amd64_stubs.go",
	})
}
