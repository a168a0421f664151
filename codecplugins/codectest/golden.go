package codectest

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// Block is a named block of values, an input of the golden-size tests.
type Block struct {
	Name string
	V    []uint32
}

// GoldenBlocks returns four fixed blocks of n values: geometric gaps of
// mean 12 and of mean 3000, ones with a random 32-bit outlier one time in
// sixteen, and uniform 32-bit values. The rice and GPU formats pin their
// encoded sizes.
func GoldenBlocks(n int) []Block {
	rng := rand.New(rand.NewPCG(2024, uint64(n)))
	gen := func(f func() uint32) []uint32 { return Fill(n, func(int) uint32 { return f() }) }
	return []Block{
		{"geometric-mean-12", gen(func() uint32 { return uint32(rng.ExpFloat64() * 12) })},
		{"geometric-mean-3000", gen(func() uint32 { return uint32(rng.ExpFloat64() * 3000) })},
		{"ones-and-outliers", gen(func() uint32 {
			if rng.IntN(16) == 0 {
				return rng.Uint32()
			}
			return 1
		})},
		{"uniform-32bit", gen(rng.Uint32)},
	}
}

// GoldenSizes checks, in one subtest per block, that c encodes the block
// in want[block's name] bytes, pinning the format: any change to it
// shows here.
func GoldenSizes(t *testing.T, c codecplugins.Codec, blocks []Block, want map[string]int) {
	t.Helper()
	for _, b := range blocks {
		t.Run(b.Name, func(t *testing.T) {
			if got := len(c.AppendBlock(nil, b.V)); got != want[b.Name] {
				t.Errorf("len(%s.AppendBlock(%s)) = %d, want %d", c.Name(), b.Name, got, want[b.Name])
			}
		})
	}
}

// ClusteredSize checks the bytes c takes for ClusteredGaps(n, 42), cut
// into blocks, against want, pinning the format over whole lists.
func ClusteredSize(t *testing.T, c codecplugins.Codec, n, want int) {
	t.Helper()
	data, _ := EncodeList(c, ClusteredGaps(n, 42))
	if len(data) != want {
		t.Errorf("%s: encoded size of ClusteredGaps(%d, 42) = %d bytes, want %d", c.Name(), n, len(data), want)
	}
}

// Format checks that c encodes v as exactly want and decodes want back
// to v.
func Format(t *testing.T, c codecplugins.Codec, v []uint32, want []byte) {
	t.Helper()
	if got := c.AppendBlock(nil, v); string(got) != string(want) {
		t.Errorf("Encode(%v) = %x, want %x", v, got, want)
	}
	got := make([]uint32, len(v))
	if err := c.DecodeBlock(got, want, len(v)); err != nil || !slices.Equal(got, v) {
		t.Errorf("Decode(%x) = %v, %v, want %v", want, got, err, v)
	}
}
