package snippet

import (
	"maps"
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

// TestLocateEndsEarly checks Locate, which ends its search once no
// later window can beat the best one, against eagerLocate, which merges
// on to maxLocated occurrences or the lists' end, on random position
// lists: rare and dense terms, phrases, windows holding every unit and
// none.
func TestLocateEndsEarly(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	q := Query{Terms: []string{"a", "b", "c", "d", "new", "york"}, Phrases: [][]string{{"new", "york"}}}
	tests := []struct {
		name  string
		sizes []int // per term: how many positions (0: none)
		width int   // the text's length
	}{
		{"all rare", []int{3, 2, 5, 1, 4, 4}, 2000},
		{"all near", []int{20, 20, 20, 20, 20, 20}, 300},
		{"one dense", []int{2, 0, 0, 600, 0, 0}, 7000},
		{"two dense, phrase", []int{1, 700, 3, 900, 60, 60}, 7000},
		{"dense only", []int{300, 400, 500, 600, 0, 0}, 5000},
		{"phrase terms dense", []int{0, 0, 0, 1, 800, 800}, 4000},
		{"many rare merged", []int{40, 40, 40, 40, 0, 0}, 9000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for round := range 200 {
				m := New(q, 40+r.IntN(200))
				whole := make([][]uint32, len(q.Terms))
				for i, n := range tc.sizes {
					whole[i] = randomList(r, n, tc.width)
				}
				if round%2 == 0 && len(whole[4]) > 0 { // "new york" somewhere
					k := r.IntN(len(whole[4]))
					whole[5] = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(whole[5]), whole[4][k]+1))))
				}
				wf, wt, wok := eagerLocate(m, q.Terms, whole)
				if f, to, ok := m.Locate(q.Terms, whole); f != wf || to != wt || ok != wok {
					t.Fatalf("lists %v: Locate = %d, %d, %v; eager %d, %d, %v", whole, f, to, ok, wf, wt, wok)
				}
			}
		})
	}
}

// randomList returns n increasing positions below width (fewer where
// width is short).
func randomList(r *rand.Rand, n, width int) []uint32 {
	if n == 0 {
		return nil
	}
	set := map[uint32]bool{}
	for range n {
		set[uint32(r.IntN(width))] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// eagerLocate is Locate without its early end: the merge goes on to
// maxLocated occurrences or the lists' end, and each dense list is
// searched whole at every window.
func eagerLocate(m *Maker, terms []string, positions [][]uint32) (from, to uint32, ok bool) {
	byID := make([][]uint32, len(m.unit))
	for i, t := range terms {
		if id, known := m.ids[t]; known && i < len(positions) {
			byID[id] = positions[i]
		}
	}
	var lists []unitList
	for id, u := range m.unit {
		if u >= 0 && len(byID[id]) > 0 {
			lists = append(lists, unitList{unit: u, starts: byID[id]})
		}
	}
	nbare := int32(m.units - len(m.phrases))
	for k, ids := range m.phrases {
		var phrased []uint32
	next:
		for _, p := range byID[ids[0]] {
			for j, id := range ids[1:] {
				if _, found := slices.BinarySearch(byID[id], p+uint32(j)+1); !found {
					continue next
				}
			}
			phrased = append(phrased, p)
		}
		if len(phrased) > 0 {
			lists = append(lists, unitList{unit: nbare + int32(k), starts: phrased, length: uint32(len(ids)) - 1})
		}
	}
	if len(lists) == 0 {
		return 0, 0, false
	}
	slices.SortStableFunc(lists, func(a, b unitList) int { return len(a.starts) - len(b.starts) })
	merged, total := 1, len(lists[0].starts)
	for merged < len(lists) && total+len(lists[merged].starts) <= maxLocated {
		total += len(lists[merged].starts)
		merged++
	}
	checked := lists[merged:]
	lists = lists[:merged]
	present := len(lists) + len(checked)
	count := make([]int, m.units)
	var occs []located
	span := m.Span()
	best, distinct, l := 0, 0, 0
	for best < present && len(occs) < maxLocated {
		k, p := -1, uint32(noStart)
		for i, u := range lists {
			if len(u.starts) > 0 && u.starts[0] < p {
				k, p = i, u.starts[0]
			}
		}
		if k < 0 {
			break
		}
		u := &lists[k]
		u.starts = u.starts[1:]
		o := located{p, p + u.length, u.unit}
		occs = append(occs, o)
		for l < len(occs)-1 && occs[l].start+span <= o.end {
			if count[occs[l].unit]--; count[occs[l].unit] == 0 {
				distinct--
			}
			l++
		}
		if count[o.unit]++; count[o.unit] == 1 {
			distinct++
		}
		d := distinct
		for _, c := range checked {
			if i, _ := slices.BinarySearch(c.starts, occs[l].start); i < len(c.starts) && c.starts[i]-occs[l].start < span {
				d++
			}
		}
		if d > best {
			best, from, to = d, occs[l].start, o.end
		}
	}
	return from, to, true
}
