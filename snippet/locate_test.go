package snippet

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLocate checks the window Locate picks from term positions: the
// most distinct units within Span tokens, the earliest of equals,
// phrases only where their terms follow each other, and a term too
// frequent to merge found beside a rare one far into the text.
func TestLocate(t *testing.T) {
	q := Query{Terms: []string{"a", "b", "new", "york"}, Phrases: [][]string{{"new", "york"}}}
	m := New(q, 160) // Span 32
	tests := []struct {
		name     string
		pos      [][]uint32 // a, b, new, york
		from, to uint32
		ok       bool
	}{
		{"nothing", [][]uint32{nil, nil, nil, nil}, 0, 0, false},
		{"one term", [][]uint32{{7, 90}, nil, nil, nil}, 7, 7, true},
		{"both terms near", [][]uint32{{5, 100}, {120}, nil, nil}, 100, 120, true},
		{"too far apart", [][]uint32{{5}, {40}, nil, nil}, 5, 5, true},
		{"phrase", [][]uint32{{3}, {300}, {50, 200}, {51, 150}}, 3, 3, true},
		{"phrase and term", [][]uint32{{3, 210}, nil, {50, 200}, {51, 150, 201}}, 200, 210, true},
		{"words apart are no phrase", [][]uint32{{400}, nil, {50}, {52}}, 400, 400, true},
		{"a dense term checked where a rare one lies", [][]uint32{every(10, 200), {1505}, nil, nil}, 1505, 1505, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			from, to, ok := m.Locate(q.Terms, tc.pos)
			if from != tc.from || to != tc.to || ok != tc.ok {
				t.Errorf("Locate = %d, %d, %v; want %d, %d, %v", from, to, ok, tc.from, tc.to, tc.ok)
			}
		})
	}
}

// every returns n positions step apart from 0.
func every(step, n uint32) []uint32 {
	ps := make([]uint32, n)
	for i := range ps {
		ps[i] = uint32(i) * step
	}
	return ps
}

// TestHoldingWalksForward checks holding, which drops the starts it
// passes, against a search of the whole lists at each window, for
// windows moving forward as Locate's do, lists empty, short and dense.
func TestHoldingWalksForward(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, sizes := range [][]int{{0}, {1}, {1, 2, 3}, {50, 500}, {1000, 7, 300}} {
		lists := make([]unitList, len(sizes))
		whole := make([][]uint32, len(sizes))
		for j, n := range sizes {
			p := uint32(r.IntN(5))
			for range n {
				whole[j] = append(whole[j], p)
				p += 1 + uint32(r.IntN(40))
			}
			lists[j] = unitList{unit: int32(j), starts: whole[j]}
		}
		for from := uint32(0); from < 40000; from += uint32(r.IntN(60)) {
			want := 0
			for _, s := range whole {
				i, _ := slices.BinarySearch(s, from)
				if i < len(s) && s[i]-from < 32 {
					want++
				}
			}
			if got := holding(lists, from, 32); got != want {
				t.Fatalf("lists of %v, window at %d: holding %d, want %d", sizes, from, got, want)
			}
		}
	}
}
