package ef

import (
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

func FuzzDecodePEF(f *testing.F) {
	f.Add(PartitionedEliasFano{}.AppendBlock(nil, []uint32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 90, 3, 7}), 17)
	f.Add(PartitionedEliasFano{}.AppendBlock(nil, []uint32{math.MaxUint32, 0, 7}), 3)
	f.Add([]byte{0x7F, 0x21, 0xFF, 0xFF, 0xFF, 0xFF}, 128)
	f.Fuzz(func(t *testing.T, data []byte, n int) { codectest.Fuzz(PartitionedEliasFano{}, data, n) })
}

func TestPEFGoldenSize(t *testing.T) {
	want := map[string]int{
		"geometric-mean-12":   86,
		"geometric-mean-3000": 216,
		"clustered":           70,
		"freqs":               14,
		"uniform-32bit":       529,
	}
	for _, tt := range goldenInputs() {
		t.Run(tt.Name, func(t *testing.T) {
			got := len(PartitionedEliasFano{}.AppendBlock(nil, tt.V))
			if got != want[tt.Name] {
				t.Errorf("len(AppendBlock(%s)) = %d, want %d", tt.Name, got, want[tt.Name])
			}
			// One EF partition costs 13 header bits against elias-fano's
			// 8, so partitioning is never more than a byte worse.
			if ef := len(EliasFano{}.AppendBlock(nil, tt.V)); got > ef+1 {
				t.Errorf("len(AppendBlock(%s)) = %d, elias-fano gives %d", tt.Name, got, ef)
			}
		})
	}
}

func TestPEFPartitions(t *testing.T) {
	rep := func(n int, x uint32) []uint32 {
		v := make([]uint32, n)
		for i := range v {
			v[i] = x
		}
		return v
	}
	tests := []struct {
		name    string
		v       []uint32
		want    []part
		wantLen int
	}{
		{"all-zeros", rep(128, 0), []part{{128, true}}, 2},                                                            // 14 bits
		{"all-max", rep(128, math.MaxUint32), []part{{128, true}}, 6},                                                 // 14 + 32 bits
		{"consecutive-docids", rep(100, 1), []part{{100, true}}, 2},                                                   // 15 bits
		{"single", []uint32{300}, []part{{1, false}}, 3},                                                              // 13 + 9 + 1 + 1 bits
		{"run-then-spread", append(rep(64, 1), 1000, 2000, 500, 3000, 40, 7000), []part{{64, true}, {70, false}}, 14}, // 15 + 13 + 6*(11+1) + 6 bits
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := partition(tt.v)
			if len(got) != len(tt.want) {
				t.Fatalf("partition(%v) = %v, want %v", tt.v, got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("partition(%v) = %v, want %v", tt.v, got, tt.want)
				}
			}
			if n := len(PartitionedEliasFano{}.AppendBlock(nil, tt.v)); n != tt.wantLen {
				t.Errorf("len(AppendBlock(%v)) = %d, want %d", tt.v, n, tt.wantLen)
			}
		})
	}
}

// TestPEFOptimal compares the encoded size with the best of every split of
// short blocks into partitions, each priced at its cheapest kind and width,
// found by enumeration independently of the DP and of lowWidth.
func TestPEFOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		n := 1 + rng.IntN(9)
		v := make([]uint32, n)
		for i := range v {
			switch rng.IntN(4) {
			case 0:
				v[i] = 1
			case 1:
				v[i] = uint32(rng.IntN(4))
			case 2:
				v[i] = uint32(rng.ExpFloat64() * 200)
			default:
				v[i] = rng.Uint32() >> rng.IntN(32)
			}
		}
		best := uint64(math.MaxUint64)
		for mask := 0; mask < 1<<(n-1); mask++ { // bit i set: split after v[i]
			total, start := uint64(0), 0
			for i := range n {
				if i == n-1 || mask>>i&1 == 1 {
					total += bruteBits(v[start : i+1])
					start = i + 1
				}
			}
			best = min(best, total)
		}
		want := int((best + 7) / 8)
		if got := len(PartitionedEliasFano{}.AppendBlock(nil, v)); got != want {
			t.Errorf("trial %d: len(AppendBlock(%v)) = %d, want %d", trial, v, got, want)
		}
	}
}

// bruteBits is the size of the cheapest single partition holding seg.
func bruteBits(seg []uint32) uint64 {
	var u uint64
	run := true
	for _, x := range seg {
		u += uint64(x)
		run = run && x == seg[0]
	}
	best := uint64(math.MaxUint64)
	for l := uint(0); l <= maxL; l++ {
		best = min(best, efHeaderBits+uint64(len(seg))*uint64(l+1)+u>>l)
	}
	if run {
		best = min(best, runHeaderBits+uint64(bits.Len32(seg[0])))
	}
	return best
}

func TestPEFCorrupt(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		n    int
	}{
		{"empty", nil, 1},
		// m-1 = 5: six values in a block of two.
		{"partition-too-long", []byte{0x05, 0x00, 0xFF}, 2},
		// m = 1, run, width 33.
		{"run-too-wide", []byte{0x80, 33, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, 1},
		// m = 1, run, width 16, only 8 bits of value.
		{"run-truncated", []byte{0x80, 16, 0xFF}, 1},
		// m = 3, EF, l = 0, two ones.
		{"ef-too-few-ones", []byte{0x02, 0b0110_0000}, 3},
		// Two partitions: a run of one 0, then nothing.
		{"missing-partition", []byte{0x80, 0x00}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]uint32, tt.n)
			err := PartitionedEliasFano{}.DecodeBlock(dst, tt.src, tt.n)
			if !errors.Is(err, codecplugins.ErrCorrupt) {
				t.Errorf("Decode(%v) = %v, %v; want an error wrapping ErrCorrupt", tt.src, dst, err)
			}
		})
	}
}
