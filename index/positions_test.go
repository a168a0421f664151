package index

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
)

// randomPositions makes a block of n postings: frequencies and strictly
// increasing positions, some far apart.
func randomPositions(rng *rand.Rand, n int) (freqs []uint32, positions [][]uint32) {
	for range n {
		f := 1 + rng.IntN(6)
		if rng.IntN(10) == 0 {
			f += rng.IntN(300)
		}
		var ps []uint32
		p := uint32(rng.IntN(50))
		for range f {
			ps = append(ps, p)
			p += 1 + uint32(rng.IntN(40))
			if rng.IntN(50) == 0 {
				p += uint32(rng.IntN(1 << 20))
			}
		}
		freqs = append(freqs, uint32(f))
		positions = append(positions, ps)
	}
	return freqs, positions
}

func TestPositionsBlockRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range codecplugins.Names() {
		c, err := codecplugins.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 7, 128, 129} {
			freqs, positions := randomPositions(rng, n)
			var vals, want []uint32
			for _, ps := range positions {
				vals = appendPositionGaps(vals, ps)
				want = append(want, ps...)
			}
			enc := appendPositionsBlock(nil, c, vals)
			got, err := decodePositionsBlock(nil, c, enc, freqs)
			if err != nil {
				t.Fatalf("%s, %d postings: %v", name, n, err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s, %d postings: positions differ", name, n)
			}
			// Truncations fail cleanly, never panic.
			for cut := 0; cut < len(enc); cut += 1 + len(enc)/17 {
				if _, err := decodePositionsBlock(nil, c, enc[:cut], freqs); err != nil && !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%s: truncated at %d: %v does not wrap ErrCorrupt", name, cut, err)
				}
			}
		}
	}
}

func TestPositionsTable(t *testing.T) {
	sizes := []uint64{3, 0, 200, 1}
	data := make([]byte, 204)
	file := appendPositionsTable(slices.Clone(data), sizes, uint64(len(data)))
	offs, err := parsePositionsTable(file, 4)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint64{0, 3, 3, 203, 204}; !slices.Equal(offs, want) {
		t.Fatalf("offsets %v, want %v", offs, want)
	}
	for _, tc := range []struct {
		name   string
		file   []byte
		blocks uint64
	}{
		{"wrong block count", file, 5},
		{"no trailer", file[:len(file)-1], 4},
		{"empty", nil, 0},
		{"sizes past the data", appendPositionsTable(slices.Clone(data), []uint64{300}, uint64(len(data))), 1},
		{"sizes short of the data", appendPositionsTable(slices.Clone(data), []uint64{3}, uint64(len(data))), 1},
		{"table offset past the end", appendPositionsTable(nil, nil, 1<<40), 0},
	} {
		if _, err := parsePositionsTable(tc.file, tc.blocks); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// FuzzPositions decodes garbage as a block's positions and as a positions
// file's table: errors, never panics.
func FuzzPositions(f *testing.F) {
	c, _ := codecplugins.Lookup("varint-SU")
	f.Add(appendPositionsBlock(nil, c, []uint32{0, 4, 2, 9}), []byte{2, 1, 1}, uint8(0))
	f.Add(appendPositionsTable(nil, []uint64{0, 0}, 0), []byte{1}, uint8(1))
	names := codecplugins.Names()
	f.Fuzz(func(t *testing.T, data, freqBytes []byte, codec uint8) {
		c, err := codecplugins.Lookup(names[int(codec)%len(names)])
		if err != nil {
			t.Fatal(err)
		}
		freqs := make([]uint32, len(freqBytes))
		for i, b := range freqBytes {
			freqs[i] = uint32(b)
		}
		if _, err := decodePositionsBlock(nil, c, data, freqs); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error %v does not wrap ErrCorrupt", err)
		}
		parsePositionsTable(data, uint64(codec))
	})
}
