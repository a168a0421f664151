package query

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
)

// tokenCorpus is a collection kept as its documents' term sequences, so
// that phrases can be checked by brute force.
type tokenCorpus struct {
	docs [][]string
	tfs  []map[string]uint32 // each document's term frequencies, made on first use
	ix   *index.Index
}

// writeTokenCorpus draws docs documents of Zipfian terms from a small
// vocabulary (so that phrases of common terms recur), a few of them long
// enough to spread a posting's positions over many chunks, and indexes
// them with positions.
func writeTokenCorpus(t *testing.T, rng *rand.Rand, docs, vocab int, codec string) *tokenCorpus {
	t.Helper()
	tc := &tokenCorpus{docs: make([][]string, docs)}
	lens := make([]uint32, docs)
	urls := make([]string, docs)
	for d := range docs {
		n := rng.IntN(40)
		if rng.IntN(100) == 0 {
			n = 2000
		}
		for range n {
			tc.docs[d] = append(tc.docs[d], termName(max(1, int(math.Exp(rng.Float64()*math.Log(float64(vocab)))))))
		}
		lens[d] = uint32(n)
		urls[d] = fmt.Sprintf("doc/%06d", d)
	}
	positions := map[string]map[uint32][]uint32{}
	for d, ts := range tc.docs {
		for p, term := range ts {
			if positions[term] == nil {
				positions[term] = map[uint32][]uint32{}
			}
			positions[term][uint32(d)] = append(positions[term][uint32(d)], uint32(p))
		}
	}
	dir := t.TempDir()
	w, err := index.NewWriter(dir, index.WriterOptions{DocIDCodec: codec, FreqCodec: codec, Order: "crawl", Positions: true}, lens, urls)
	if err != nil {
		t.Fatal(err)
	}
	for _, term := range slices.Sorted(maps.Keys(positions)) {
		var docids, freqs, ps []uint32
		for _, d := range slices.Sorted(maps.Keys(positions[term])) {
			docids = append(docids, d)
			freqs = append(freqs, uint32(len(positions[term][d])))
			ps = append(ps, positions[term][d]...)
		}
		if err := w.AddTermPositions(term, docids, freqs, ps); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if tc.ix, err = index.Open(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tc.ix.Close() })
	return tc
}

// holdsPhrase reports whether the term sequence holds the phrase.
func holdsPhrase(doc, phrase []string) bool {
	for i := 0; i+len(phrase) <= len(doc); i++ {
		if slices.Equal(doc[i:i+len(phrase)], phrase) {
			return true
		}
	}
	return false
}

// bruteForce answers q over the term sequences: which documents match by
// the rules of phrase.go, scored with BM25 summed in query-term order.
func (tc *tokenCorpus) bruteForce(q Query) []Hit {
	run := func(mode Mode) []Hit {
		inPhrase := map[string]bool{}
		for _, p := range q.Phrases {
			for _, t := range p {
				inPhrase[t] = true
			}
		}
		top := NewTopK(q.K)
		params, norms := tc.ix.BM25(), tc.ix.Norms()
		for d, doc := range tc.docs {
			tf := tc.tfs[d]
			var match bool
			if mode == And {
				match = true
				for _, t := range q.Terms {
					match = match && tf[t] > 0
				}
				for _, p := range q.Phrases {
					match = match && holdsPhrase(doc, p)
				}
			} else {
				for _, t := range q.Terms {
					match = match || (tf[t] > 0 && (len(q.Phrases) == 0 || !inPhrase[t]))
				}
				for _, p := range q.Phrases {
					match = match || holdsPhrase(doc, p)
				}
			}
			if !match {
				continue
			}
			var score float32
			for _, t := range q.Terms {
				if info, ok := tc.ix.Lookup(t); ok && tf[t] > 0 {
					score += params.TermScore(tc.ix.IDF(info), tf[t], norms[d])
				}
			}
			top.Push(Hit{DocID: uint32(d), Score: score})
		}
		return top.Hits()
	}
	if q.K <= 0 || len(q.Terms) == 0 {
		return nil
	}
	if tc.tfs == nil {
		for _, doc := range tc.docs {
			tf := map[string]uint32{}
			for _, t := range doc {
				tf[t]++
			}
			tc.tfs = append(tc.tfs, tf)
		}
	}
	if q.Mode != AndOr {
		return run(q.Mode)
	}
	if hits := run(And); len(hits) >= q.K {
		return hits
	}
	return run(Or)
}

// randomPhraseQuery makes a query of loose terms and phrases: phrases cut
// from the documents (which match somewhere), and random ones (which
// mostly do not), sometimes with a term the index lacks.
func (tc *tokenCorpus) randomPhraseQuery(rng *rand.Rand, vocab int) Query {
	q := Query{Mode: []Mode{And, Or, AndOr}[rng.IntN(3)], K: []int{1, 5, 10, 100}[rng.IntN(4)]}
	add := func(t string) {
		if !slices.Contains(q.Terms, t) {
			q.Terms = append(q.Terms, t)
		}
	}
	for range rng.IntN(3) {
		add(termName(1 + rng.IntN(vocab)))
	}
	for range 1 + rng.IntN(2) {
		var p []string
		doc := tc.docs[rng.IntN(len(tc.docs))]
		n := 2 + rng.IntN(3)
		switch {
		case rng.IntN(3) > 0 && len(doc) >= n:
			at := rng.IntN(len(doc) - n + 1)
			p = slices.Clone(doc[at : at+n])
		default:
			for range n {
				p = append(p, termName(1+rng.IntN(min(vocab, 6))))
			}
			if rng.IntN(10) == 0 {
				p[rng.IntN(n)] = "missing"
			}
		}
		for _, t := range p {
			add(t)
		}
		if !slices.ContainsFunc(q.Phrases, func(o []string) bool { return slices.Equal(o, p) }) {
			q.Phrases = append(q.Phrases, p)
		}
	}
	rng.Shuffle(len(q.Terms), func(i, j int) { q.Terms[i], q.Terms[j] = q.Terms[j], q.Terms[i] })
	return q
}

func TestPhrasesMatchBruteForceOnRandomCorpora(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	corpora := 3
	if testing.Short() {
		corpora = 1
	}
	for _, codec := range testCodecs(t) {
		for c := range corpora {
			vocab := 5 + rng.IntN(60)
			tc := writeTokenCorpus(t, rng, 100+rng.IntN(1500), vocab, codec)
			engines := testEngines(t, tc.ix)
			t.Run(fmt.Sprintf("%s/%d", codec, c), func(t *testing.T) {
				matched := 0
				for range 150 {
					q := tc.randomPhraseQuery(rng, vocab)
					want := tc.bruteForce(q)
					got, err := engines["exhaustive"].Search(context.Background(), q)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got.Hits, want) {
						t.Fatalf("exhaustive.Search(%+v) = %v, brute force %v", q, got.Hits, want)
					}
					compareEngines(t, engines, q)
					if len(want) > 0 {
						matched++
					}
				}
				if matched < 30 {
					t.Errorf("only %d of 150 phrase queries matched: the test checks little", matched)
				}
			})
		}
	}
}

func TestParsePhrases(t *testing.T) {
	a := analysis.New()
	for _, tc := range []struct {
		text    string
		terms   []string
		phrases [][]string
	}{
		{`http server`, []string{"http", "server"}, nil},
		{`"http server" timeout`, []string{"http", "server", "timeout"}, [][]string{{"http", "server"}}},
		{`"Running Dogs"`, []string{"run", "dog"}, [][]string{{"run", "dog"}}},
		{`"one" two`, []string{"one", "two"}, nil}, // a phrase of one term is a term
		{`"" x "  "`, []string{"x"}, nil},
		{`"a b" "a b" "b a"`, []string{"a", "b"}, [][]string{{"a", "b"}, {"b", "a"}}},
		{`"new york new"`, []string{"new", "york"}, [][]string{{"new", "york", "new"}}},
		{`"x-ray vision"`, []string{"x", "ray", "vision"}, [][]string{{"x", "ray", "vision"}}},
	} {
		q, err := Parse(a, tc.text, Or, 10)
		if err != nil || !slices.Equal(q.Terms, tc.terms) || !slices.EqualFunc(q.Phrases, tc.phrases, slices.Equal) {
			t.Errorf("Parse(%s) = %q %q, %v; want %q %q", tc.text, q.Terms, q.Phrases, err, tc.terms, tc.phrases)
		}
	}
	for _, text := range []string{`"http server`, `a "b" "c`, `"`, `"""`} {
		if _, err := Parse(a, text, And, 10); !errors.Is(err, ErrUnbalancedQuotes) {
			t.Errorf("Parse(%s): error %v, want ErrUnbalancedQuotes", text, err)
		}
	}
}

func TestPhraseWithoutPositions(t *testing.T) {
	ix := testindex.Write(t, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"},
		[]uint32{2}, []string{"u"},
		testindex.Postings{Term: "a", DocIDs: []uint32{0}, Freqs: []uint32{1}},
		testindex.Postings{Term: "b", DocIDs: []uint32{0}, Freqs: []uint32{1}})
	q := Query{Terms: []string{"a", "b"}, Phrases: [][]string{{"a", "b"}}, K: 10}
	for name, e := range testEngines(t, ix) {
		for _, mode := range []Mode{And, Or, AndOr} {
			q.Mode = mode
			if _, err := e.Search(context.Background(), q); !errors.Is(err, index.ErrNoPositions) {
				t.Errorf("%s, %s: error %v, want ErrNoPositions", name, mode, err)
			}
		}
	}
}

// TestPhrasesOnSampleCrawl runs phrases cut from the sample crawl's
// stored texts (and the same words unquoted) through every engine, and
// checks the exhaustive reference against a brute-force phrase matcher
// over each document's analyzed text.
func TestPhrasesOnSampleCrawl(t *testing.T) {
	ix := testindex.Crawl(t, indexer.Options{Workers: 2, Positions: true})
	engines := testEngines(t, ix)
	a := analysis.New()
	docs := make([][]string, ix.NumDocs())
	texts := make([]string, ix.NumDocs())
	for d := range docs {
		doc, err := ix.Document(uint32(d), true)
		if err != nil {
			t.Fatal(err)
		}
		texts[d] = doc.Text
		docs[d] = a.Terms(doc.Text)
	}
	tc := &tokenCorpus{docs: docs, ix: ix}
	rng := rand.New(rand.NewPCG(7, 8))
	matched := 0
	for range 60 {
		d := rng.IntN(len(texts))
		type span struct{ start, end int }
		var spans []span
		a.AnalyzeOffsets([]byte(texts[d]), func(_ string, start, end int) { spans = append(spans, span{start, end}) })
		n := 2 + rng.IntN(2)
		if len(spans) < n {
			continue
		}
		at := rng.IntN(len(spans) - n + 1)
		words := texts[d][spans[at].start:spans[at+n-1].end]
		if strings.Contains(words, `"`) {
			continue
		}
		extra := termName(1 + rng.IntN(3)) // mostly not in the crawl
		for _, text := range []string{`"` + words + `"`, words, `"` + words + `" ` + extra, "http " + `"` + words + `"`} {
			for _, mode := range []Mode{And, Or, AndOr} {
				q := mustParse(t, a, text, mode, 10)
				want := tc.bruteForce(q)
				got, err := engines["exhaustive"].Search(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Hits, want) {
					t.Fatalf("exhaustive.Search(%s, %s) = %v, brute force %v", text, mode, got.Hits, want)
				}
				compareEngines(t, engines, q)
				if len(want) > 0 && len(q.Phrases) > 0 {
					matched++
				}
			}
		}
	}
	if matched < 100 {
		t.Errorf("only %d phrase queries matched", matched)
	}
}
