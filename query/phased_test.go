package query

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/testindex"
)

// TestPhasesKeepTies checks MaxScore's two phases where scores tie: the
// first phase keeps documents of the best list, which have higher docids
// than the second phase's equals, and those must still win their ties by
// docid. Every document of this corpus scores the same for each term.
func TestPhasesKeepTies(t *testing.T) {
	const docs = 40
	lens := make([]uint32, docs)
	urls := make([]string, docs)
	for d := range docs {
		lens[d] = 5
		urls[d] = fmt.Sprintf("doc/%02d", d)
	}
	span := func(from, to uint32) (ids, freqs []uint32) {
		for d := from; d < to; d++ {
			ids, freqs = append(ids, d), append(freqs, 1)
		}
		return ids, freqs
	}
	aIDs, aFreqs := span(20, 30) // "a" and "b": the same bound, apart
	bIDs, bFreqs := span(0, 10)
	cIDs, cFreqs := span(5, 25) // "c": overlapping both
	ix := testindex.Write(t, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}, lens, urls,
		testindex.Postings{Term: "a", DocIDs: aIDs, Freqs: aFreqs},
		testindex.Postings{Term: "b", DocIDs: bIDs, Freqs: bFreqs},
		testindex.Postings{Term: "c", DocIDs: cIDs, Freqs: cFreqs})
	ref := NewExhaustive(ix)
	e, err := New(ix, "maxscore")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		terms []string
		k     int
	}{
		{[]string{"a", "b"}, 3},
		{[]string{"b", "a"}, 3},
		{[]string{"a", "b"}, 15},
		{[]string{"a", "c"}, 4},
		{[]string{"a", "b", "c"}, 12},
		{[]string{"c", "b", "a"}, 30},
	} {
		q := Query{Terms: tc.terms, Mode: Or, K: tc.k}
		want, err := ref.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Hits, want.Hits) {
			t.Errorf("%v: %v, want %v", q, got.Hits, want.Hits)
		}
	}
}
