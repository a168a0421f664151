package bench

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestGenerators(t *testing.T) {
	tests := []struct {
		name string
		gen  func(*rand.Rand, int, uint32) []uint32
		n    int
		max  uint32
	}{
		{"uniform small", Uniform, 100, 1 << 29},
		{"uniform bitset", Uniform, 50000, 1 << 20},
		{"uniform more than half", Uniform, 900, 1000},
		{"uniform full", Uniform, 5000, 5000},
		{"clustered sparse", Clustered, 1 << 12, 1 << 29},
		{"clustered dense", Clustered, 1 << 16, 1 << 18},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := tt.gen(rand.New(rand.NewPCG(1, 2)), tt.n, tt.max)
			if len(v) != tt.n {
				t.Fatalf("len = %d, want %d", len(v), tt.n)
			}
			for i := range v {
				if v[i] >= tt.max || (i > 0 && v[i] <= v[i-1]) {
					t.Fatalf("value %d at %d: not distinct, sorted and below %d", v[i], i, tt.max)
				}
			}
			again := tt.gen(rand.New(rand.NewPCG(1, 2)), tt.n, tt.max)
			if !slices.Equal(v, again) {
				t.Fatal("not reproducible for the same seed")
			}
		})
	}
}

func TestClusteredIsClustered(t *testing.T) {
	// Clustered lists compress better than uniform ones: fewer distinct
	// large gaps. Compare the mean log2 gap.
	r := rand.New(rand.NewPCG(3, 3))
	meanLog := func(v []uint32) float64 {
		var s float64
		for _, g := range Gaps(v) {
			for g > 1 {
				s++
				g >>= 1
			}
		}
		return s / float64(len(v))
	}
	u := meanLog(Uniform(r, 1<<16, 1<<29))
	c := meanLog(Clustered(r, 1<<16, 1<<29))
	if c >= u-0.5 {
		t.Errorf("clustered mean log2 gap %.2f not well below uniform %.2f", c, u)
	}
}
