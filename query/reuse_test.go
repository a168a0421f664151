package query

import (
	"context"
	"testing"
)

// TestRepeatedSearchReusesItsMemory checks that a DAAT engine keeps its
// finished searches (cursors, heap, scratch) for the next query: what a
// small segment of a segmented index pays on every query. A search
// allocated 12 objects (AND) or 14 (OR) before; now at most 2 (the
// resolved terms and the hits returned), MaxScore's phases and block
// scores included.
func TestRepeatedSearchReusesItsMemory(t *testing.T) {
	ix := openCorpus(t, corpusSpec{Docs: 3000, Vocab: 100, Zipf: 1, AvgLen: 50, Seed: 7, Codec: testCodecs(t)[0]})
	e, err := New(ix, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		mode Mode
		most float64
	}{{And, 2}, {Or, 2}} {
		q := Query{Terms: []string{termName(1), termName(2), termName(5)}, Mode: tc.mode, K: 10}
		if n := testing.AllocsPerRun(100, func() { e.Search(ctx, q) }); n > tc.most {
			t.Errorf("%v: %v allocations per search, want at most %v", tc.mode, n, tc.most)
		}
	}
}
