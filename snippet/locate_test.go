package snippet

import "testing"

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
