package intersect

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomList draws n distinct docids below universe, sorted.
func randomList(rng *rand.Rand, n int, universe uint32) []uint32 {
	seen := map[uint32]bool{}
	for len(seen) < n {
		seen[rng.Uint32N(universe)] = true
	}
	out := make([]uint32, 0, n)
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// reference intersects by counting: simple enough to trust.
func reference(lists ...[]uint32) []uint32 {
	count := map[uint32]int{}
	for _, l := range lists {
		for _, d := range l {
			count[d]++
		}
	}
	out := []uint32{}
	for d, c := range count {
		if c == len(lists) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// algorithms runs every algorithm on lists, by name; the bitmap only when
// the docids are small enough for a bitset of their universe to be cheap.
func algorithms(lists [][]uint32) map[string][]uint32 {
	ls := byLength(lists)
	var tables []*HashTable
	var sets []*Bitset
	small := true
	for _, l := range ls[1:] {
		tables = append(tables, NewHashTable(l))
		if len(l) > 0 && l[len(l)-1] >= 1<<24 {
			small = false
		}
		if small {
			sets = append(sets, NewBitset(l))
		}
	}
	out := map[string][]uint32{
		"merge":     MergeAll([]uint32{}, lists...),
		"galloping": GallopingAll([]uint32{}, lists...),
		"svs":       SVS([]uint32{}, lists...),
		"adp":       ADP([]uint32{}, lists...),
		"hash":      Hash([]uint32{}, ls[0], tables...),
	}
	if small {
		out["bitmap"] = Bitmap([]uint32{}, ls[0], sets...)
	}
	return out
}

func TestAlgorithmsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 400 {
		k := 1 + rng.IntN(4)
		universe := uint32(1 + rng.IntN(5000))
		if i%10 == 0 {
			universe = 1<<32 - 1 // docids near the top of the range
		}
		lists := make([][]uint32, k)
		for j := range lists {
			lists[j] = randomList(rng, rng.IntN(min(int(universe), 1+rng.IntN(3000))), universe)
		}
		if i%7 == 0 {
			// One list inside another: a large intersection.
			lists = append(lists, slices.Clone(lists[0]))
		}
		want := reference(lists...)
		for name, got := range algorithms(lists) {
			if got == nil {
				got = []uint32{}
			}
			if !slices.Equal(got, want) {
				t.Errorf("case %d: %s(%d lists of lengths %v) = %d docids, want %d\n got  %v\n want %v",
					i, name, k, lengths(lists), len(got), len(want), head(got), head(want))
			}
		}
	}
}

func TestAlgorithmsEdgeCases(t *testing.T) {
	top := uint32(1<<32 - 1)
	tests := []struct {
		name  string
		lists [][]uint32
		want  []uint32
	}{
		{"empty list", [][]uint32{{}, {1, 2, 3}}, []uint32{}},
		{"both empty", [][]uint32{{}, {}}, []uint32{}},
		{"single list", [][]uint32{{4, 9}}, []uint32{4, 9}},
		{"disjoint", [][]uint32{{1, 3, 5}, {0, 2, 4, 6}}, []uint32{}},
		{"equal", [][]uint32{{0, 7, 100}, {0, 7, 100}}, []uint32{0, 7, 100}},
		{"largest docid", [][]uint32{{0, top}, {5, top}, {top}}, []uint32{top}},
		{"largest bitset docid", [][]uint32{{0, 1<<24 - 1}, {1<<24 - 1}}, []uint32{1<<24 - 1}},
		{"zero only", [][]uint32{{0}, {0, 1}, {0, 2}}, []uint32{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for name, got := range algorithms(tt.lists) {
				if got == nil {
					got = []uint32{}
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("%s(%v) = %v, want %v", name, tt.lists, got, tt.want)
				}
			}
		})
	}
}

func TestInputsUntouched(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	lists := [][]uint32{randomList(rng, 300, 2000), randomList(rng, 50, 2000), randomList(rng, 900, 2000)}
	saved := make([][]uint32, len(lists))
	for i, l := range lists {
		saved[i] = slices.Clone(l)
	}
	algorithms(lists)
	for i := range lists {
		if !slices.Equal(lists[i], saved[i]) {
			t.Errorf("list %d was modified", i)
		}
	}
}

func lengths(lists [][]uint32) []int {
	var out []int
	for _, l := range lists {
		out = append(out, len(l))
	}
	return out
}

func head(l []uint32) []uint32 { return l[:min(len(l), 12)] }

func BenchmarkIntersect(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	const universe = 1 << 24
	for _, shape := range []struct{ short, ratio int }{{1000, 1}, {1000, 100}, {10000, 10}} {
		a := randomList(rng, shape.short, universe)
		c := randomList(rng, shape.short*shape.ratio, universe)
		lists := [][]uint32{a, c}
		ht, bs := NewHashTable(c), NewBitset(c)
		dst := make([]uint32, 0, shape.short)
		for _, alg := range []struct {
			name string
			run  func() []uint32
		}{
			{"merge", func() []uint32 { return Merge(dst[:0], a, c) }},
			{"galloping", func() []uint32 { return Galloping(dst[:0], a, c) }},
			{"svs", func() []uint32 { return SVS(dst[:0], lists...) }},
			{"adp", func() []uint32 { return ADP(dst[:0], lists...) }},
			{"hash", func() []uint32 { return Hash(dst[:0], a, ht) }},
			{"bitmap", func() []uint32 { return Bitmap(dst[:0], a, bs) }},
		} {
			b.Run(fmt.Sprintf("%s/%dx%d", alg.name, shape.short, shape.ratio), func(b *testing.B) {
				b.SetBytes(int64(4 * shape.short))
				for b.Loop() {
					alg.run()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*shape.short), "ns/elem")
			})
		}
	}
}
