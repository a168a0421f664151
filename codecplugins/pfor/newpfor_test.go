package pfor

import (
	"math"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

// block returns n values equal to fill with the given values at the front.
func block(n int, fill uint32, front ...uint32) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = fill
	}
	copy(v, front)
	return v
}

func TestNewPForWidth(t *testing.T) {
	twelve := make([]uint32, 12)
	thirteen := make([]uint32, 13)
	for i := range thirteen {
		thirteen[i] = 1000
	}
	copy(twelve, thirteen)
	tests := []struct {
		name string
		v    []uint32
		want int
	}{
		{"empty", nil, 0},
		{"zeros", block(128, 0), 0},
		{"uniform width", block(128, 5, 7), 3},
		{"12 outliers of 128", block(128, 1, twelve...), 1},
		{"13 outliers of 128", block(128, 1, thirteen...), 10},
		{"short block, no room for exceptions", block(5, 1, 1000), 10},
		{"simple16 limit", block(128, 0, math.MaxUint32), 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := newPForWidth(tt.v); got != tt.want {
				t.Errorf("newPForWidth(%v) = %d, want %d", tt.v, got, tt.want)
			}
		})
	}
}

// TestNewPForGoldenSize pins the encoded size of a fixed list so that a
// format change cannot slip through unnoticed.
func TestNewPForGoldenSize(t *testing.T) { codectest.ClusteredSize(t, NewPFor{}, 1000, 511) }

func FuzzDecodeNewPFor(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		codectest.Fuzz(NewPFor{}, data, n)
		codectest.FuzzLevels(NewPFor{}, data, n) // DecodeBlockPrefix too
	})
}
