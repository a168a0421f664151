package pfor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func TestOptPForWidth(t *testing.T) {
	tests := []struct {
		name string
		v    []uint32
		want int
	}{
		{"empty", nil, 0},
		{"zeros", block(128, 0), 0},
		{"uniform width", block(128, 5, 7), 3},
		// Two simple16 words of exceptions beat 16 bytes per bit of width.
		{"one large outlier", block(128, 0, 1<<20), 0},
		{"short block", block(3, 2, 1), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := optPForWidth(tt.v); got != tt.want {
				t.Errorf("optPForWidth(%v) = %d, want %d", tt.v, got, tt.want)
			}
		})
	}
}

// TestOptPForMinimal checks on random blocks that the chosen width gives the
// smallest encoding of all widths, and never a larger one than newpfor's.
func TestOptPForMinimal(t *testing.T) {
	eachRandomBlock(t, 3, 5, func(t *testing.T, v []uint32) {
		enc := OptPFor{}.AppendBlock(nil, v)
		for b := minWidth(bitpack.Width(v)); b <= bitpack.MaxWidth; b++ {
			if l := blockLenAt(v, b); l < len(enc) {
				t.Fatalf("optpfor block is %d bytes, but width %d gives %d", len(enc), b, l)
			}
		}
		if l := len(NewPFor{}.AppendBlock(nil, v)); l < len(enc) {
			t.Fatalf("optpfor block is %d bytes, newpfor's %d", len(enc), l)
		}
	})
}

// eachRandomBlock runs f in a subtest on each of 200 random blocks from
// the seeds: clustered gaps, half of the blocks full, every fifth with a
// very wide outlier.
func eachRandomBlock(t *testing.T, seed1, seed2 uint64, f func(t *testing.T, v []uint32)) {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	for i := range 200 {
		n := 1 + rng.IntN(blockLen)
		if i%2 == 0 {
			n = blockLen
		}
		v := codectest.ClusteredGaps(n, uint64(i))
		if i%5 == 0 {
			v[rng.IntN(n)] = rng.Uint32()
		}
		t.Run(fmt.Sprintf("block=%d/n=%d", i, n), func(t *testing.T) { f(t, v) })
	}
}

// TestOptPForGoldenSize pins the encoded size of a fixed list so that a
// format change cannot slip through unnoticed.
func TestOptPForGoldenSize(t *testing.T) { codectest.ClusteredSize(t, OptPFor{}, 1000, 499) }

func FuzzDecodeOptPFor(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		codectest.Fuzz(OptPFor{}, data, n)
		codectest.FuzzLevels(OptPFor{}, data, n) // DecodeBlockPrefix too
	})
}

// TestCrossDecode checks that the two codecs share one format: each decodes
// the other's blocks.
func TestCrossDecode(t *testing.T) {
	v := codectest.ClusteredGaps(blockLen, 9)
	for _, tt := range []struct {
		name     string
		enc, dec codecplugins.Codec
	}{
		{"newpfor->optpfor", NewPFor{}, OptPFor{}},
		{"optpfor->newpfor", OptPFor{}, NewPFor{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := make([]uint32, len(v))
			if err := tt.dec.DecodeBlock(got, tt.enc.AppendBlock(nil, v), len(v)); err != nil || !slices.Equal(got, v) {
				t.Errorf("Decode(Encode(v)) = %v, %v; want %v", got, err, v)
			}
		})
	}
}
