package ef

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func FuzzDecodeEliasFano(f *testing.F) {
	f.Add(EliasFano{}.AppendBlock(nil, []uint32{0, 1, 2, 3, 100, 5}), 6)
	f.Add(EliasFano{}.AppendBlock(nil, []uint32{math.MaxUint32, 0, 7}), 3)
	f.Add([]byte{0x1F, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}, 1)
	f.Fuzz(func(t *testing.T, data []byte, n int) { codectest.Fuzz(EliasFano{}, data, n) })
}

// goldenInputs are fixed, deterministic blocks whose encoded sizes are
// pinned by the golden tests, so a format change cannot go unnoticed.
func goldenInputs() []codectest.Block {
	rng := rand.New(rand.NewPCG(2024, 128))
	gen := func(f func(i int) uint32) []uint32 { return codectest.Fill(128, f) }
	return []codectest.Block{
		{Name: "geometric-mean-12", V: gen(func(int) uint32 { return uint32(rng.ExpFloat64() * 12) })},
		{Name: "geometric-mean-3000", V: gen(func(int) uint32 { return uint32(rng.ExpFloat64() * 3000) })},
		// Clustered docids: runs of consecutive documents between jumps.
		{Name: "clustered", V: gen(func(i int) uint32 {
			if i%32 < 24 {
				return 1
			}
			return uint32(rng.ExpFloat64() * 5000)
		})},
		// freq-1 values: mostly zeros.
		{Name: "freqs", V: gen(func(int) uint32 { return uint32(rng.ExpFloat64() * 0.4) })},
		{Name: "uniform-32bit", V: gen(func(int) uint32 { return rng.Uint32() })},
	}
}

func TestEliasFanoGoldenSize(t *testing.T) {
	want := map[string]int{
		"geometric-mean-12":   85,
		"geometric-mean-3000": 216,
		"clustered":           195,
		"freqs":               18,
		"uniform-32bit":       529,
	}
	codectest.GoldenSizes(t, EliasFano{}, goldenInputs(), want)
}

// TestLowWidth checks lowWidth against a search over every width.
func TestLowWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	us := []uint64{0, 1, 2, 3, 127, 128, 129, 255, 256, 1000, 1 << 32, 128 * math.MaxUint32}
	for range 200 {
		us = append(us, rng.Uint64N(128*math.MaxUint32+1))
	}
	for _, m := range []int{1, 2, 3, 7, 64, 127, 128} {
		for _, u := range us {
			if u > uint64(m)*math.MaxUint32 {
				continue // not a sum of m 32-bit values
			}
			got := lowWidth(u, m)
			best := uint(0)
			for l := uint(1); l <= maxL; l++ {
				if seqBits(u, m, l) < seqBits(u, m, best) {
					best = l
				}
			}
			if got != best {
				t.Errorf("lowWidth(%d, %d) = %d, want %d", u, m, got, best)
			}
		}
	}
}

func TestEliasFanoLayout(t *testing.T) {
	tests := []struct {
		name string
		v    []uint32
		want []byte
	}{
		// u = 0, l = 0: three ones.
		{"zeros", []uint32{0, 0, 0}, []byte{0, 0b111}},
		// Sums 1, 3, 6: u = 6 <= 2m, so l = 0; the upper bits are the
		// unary gaps 01 001 0001, read from bit 0 of each byte.
		{"unary", []uint32{1, 2, 3}, []byte{0, 0b00010010, 0b1}},
		// Sums 5, 9: 9>>1 = 4 <= 2m, so l = 1; lows 1 1, then the highs
		// 2, 4 as unary gaps 001 001.
		{"low-bits", []uint32{5, 4}, []byte{1, 0b10010011}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (EliasFano{}).AppendBlock(nil, tt.v); string(got) != string(tt.want) {
				t.Errorf("AppendBlock(%v) = %08b, want %08b", tt.v, got, tt.want)
			}
		})
	}
}

func TestEliasFanoCorrupt(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		n    int
	}{
		{"no-header", nil, 1},
		{"width-out-of-range", []byte{32, 0xFF}, 1},
		{"too-few-ones", []byte{0, 0b011}, 3},
		{"no-upper-bits", []byte{8, 0xFF}, 1},
		// l = 1, lows 1 then 0, both highs 0: sums 1 then 0.
		{"decreasing-sums", []byte{1, 0b1101}, 2},
		// l = 31, a zero low part, then the high part 4 (bit 35): the
		// first gap would be 4<<31 = 2^33.
		{"gap-over-32-bits", []byte{31, 0, 0, 0, 0, 0b1000}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]uint32, tt.n)
			err := EliasFano{}.DecodeBlock(dst, tt.src, tt.n)
			if !errors.Is(err, codecplugins.ErrCorrupt) {
				t.Errorf("Decode(%v) = %v, %v; want an error wrapping ErrCorrupt", tt.src, dst, err)
			}
		})
	}
}
