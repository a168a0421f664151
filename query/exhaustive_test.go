package query_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/index/bm25"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/query"
)

// fixture is an index built from a generated crawl, with the test's own
// inversion of the same text.
type fixture struct {
	ix     *index.Index
	vocab  []string // the words the documents were drawn from
	zipf   *rand.Zipf
	lens   []uint32            // by docid
	tfs    []map[string]uint32 // by docid: term -> tf
	df     map[string]uint64   // term -> df
	params bm25.Params
}

// newFixture writes nDocs text documents of Zipf-distributed words (every
// seventh one a copy of an earlier one, so that scores tie), indexes them
// and inverts them in memory.
func newFixture(t *testing.T, seed uint64, nDocs int) *fixture {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed^0xabcdef))
	syll := []string{"ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "ve", "ing", "ed", "er", "s", "ly"}
	vocab := make([]string, 800)
	for i := range vocab {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		vocab[i] = b.String()
	}
	zipf := rand.NewZipf(r, 1.2, 3, uint64(len(vocab)-1))
	crawl := t.TempDir()
	texts := map[string]string{}
	var prev []string
	for i := range nDocs {
		var text string
		if i%7 == 6 {
			text = texts[prev[r.IntN(len(prev))]]
		} else {
			ws := make([]string, r.IntN(120))
			for j := range ws {
				ws[j] = vocab[zipf.Uint64()]
			}
			text = strings.Join(ws, " ")
		}
		url := fmt.Sprintf("docs/d%04d.txt", r.IntN(1_000_000))
		for texts[url] != "" {
			url += "x"
		}
		texts[url] = text
		prev = append(prev, url)
		p := filepath.Join(crawl, filepath.FromSlash(url))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "idx")
	if _, err := indexer.Build(context.Background(), crawl, out, indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Workers: 2}); err != nil {
		t.Fatalf("Build: %v", err)
	}
	ix, err := index.Open(out)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { ix.Close() })
	f := &fixture{ix: ix, vocab: vocab, zipf: zipf, df: map[string]uint64{}, params: bm25.DefaultParams()}
	a := analysis.New()
	for d := range ix.NumDocs() {
		tf := map[string]uint32{}
		var n uint32
		a.Analyze([]byte(texts[ix.URL(uint32(d))]), func(term string) { tf[term]++; n++ })
		f.lens = append(f.lens, n)
		f.tfs = append(f.tfs, tf)
		for term := range tf {
			f.df[term]++
		}
	}
	if len(f.lens) != nDocs {
		t.Fatalf("index has %d documents, want %d", len(f.lens), nDocs)
	}
	return f
}

// bruteForce scores every document from the in-memory inversion: BM25 term
// scores summed in query-term order, filtered by mode, sorted by score
// descending then docid ascending, cut to k.
func (f *fixture) bruteForce(text string, mode query.Mode, k int) []query.Hit {
	if mode == query.AndOr {
		hits := f.bruteForce(text, query.And, k)
		if len(hits) >= k {
			return hits
		}
		return f.bruteForce(text, query.Or, k)
	}
	var terms []string
	for _, term := range analysis.New().Terms(text) {
		if !slices.Contains(terms, term) {
			terms = append(terms, term)
		}
	}
	n := uint64(len(f.lens))
	var tokens uint64
	for _, l := range f.lens {
		tokens += uint64(l)
	}
	avg := float32(float64(tokens) / float64(n))
	var hits []query.Hit
	for d, tfs := range f.tfs {
		var score float32
		matched := 0
		for _, term := range terms {
			tf := tfs[term]
			if tf == 0 {
				continue
			}
			matched++
			idf := bm25.IDF(n, f.df[term])
			score += f.params.TermScore(idf, tf, f.params.Norm(f.lens[d], avg))
		}
		if (mode == query.Or && matched > 0) || (mode == query.And && matched == len(terms) && matched > 0) {
			hits = append(hits, query.Hit{DocID: uint32(d), Score: score})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].DocID < hits[j].DocID
	})
	return hits[:min(k, len(hits))]
}

// randomQuery draws 1 to 6 words: mostly corpus words, Zipf-weighted or
// uniform, sometimes an unknown word or a repeat of an earlier one.
func (f *fixture) randomQuery(r *rand.Rand) string {
	var ws []string
	for range 1 + r.IntN(6) {
		switch k := r.IntN(10); {
		case k == 0:
			ws = append(ws, "qqunknown")
		case k == 1 && len(ws) > 0:
			ws = append(ws, strings.ToUpper(ws[r.IntN(len(ws))])) // a repeat
		case k < 5:
			ws = append(ws, f.vocab[r.IntN(len(f.vocab))])
		default:
			ws = append(ws, f.vocab[f.zipf.Uint64()])
		}
	}
	return strings.Join(ws, " ")
}

func TestExhaustiveMatchesBruteForce(t *testing.T) {
	f := newFixture(t, 1, 700)
	e := query.NewExhaustive(f.ix)
	r := rand.New(rand.NewPCG(2, 3))
	a := analysis.New()
	for _, mode := range []query.Mode{query.And, query.Or, query.AndOr} {
		for _, k := range []int{1, 5, 50} {
			t.Run(fmt.Sprintf("%s/k=%d", mode, k), func(t *testing.T) {
				full, ties := 0, 0
				for range 150 {
					text := f.randomQuery(r)
					q, err := query.Parse(a, text, mode, k)
					if err != nil {
						t.Fatal(err)
					}
					res, err := e.Search(context.Background(), q)
					if err != nil {
						t.Fatalf("Search(%q): %v", text, err)
					}
					want := f.bruteForce(text, mode, k)
					if !slices.Equal(res.Hits, want) {
						t.Fatalf("Search(%q, %s, k=%d) =\n%v\nwant\n%v", text, mode, k, res.Hits, want)
					}
					if res.Stats.Algorithm != "exhaustive" {
						t.Errorf("Stats.Algorithm = %q, want exhaustive", res.Stats.Algorithm)
					}
					if len(want) == k {
						full++
					}
					for i := 1; i < len(want); i++ {
						if want[i].Score == want[i-1].Score {
							ties++
						}
					}
				}
				if full == 0 {
					t.Errorf("no query filled the top-%d: the test compares too little", k)
				}
				if k > 1 && ties == 0 {
					t.Errorf("no tied scores in any top-%d: the tie order goes untested", k)
				}
			})
		}
	}
}

func TestExhaustiveConcurrent(t *testing.T) {
	f := newFixture(t, 4, 300)
	e := query.NewExhaustive(f.ix)
	r := rand.New(rand.NewPCG(5, 6))
	var texts []string
	for range 40 {
		texts = append(texts, f.randomQuery(r))
	}
	want := make([][]query.Hit, len(texts))
	for i, text := range texts {
		want[i] = f.bruteForce(text, query.Or, 10)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4*len(texts))
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := analysis.New()
			for i := range texts {
				i = (i + g*7) % len(texts)
				q, err := query.Parse(a, texts[i], query.Or, 10)
				if err != nil {
					errs <- err
					return
				}
				res, err := e.Search(context.Background(), q)
				if err != nil || !slices.Equal(res.Hits, want[i]) {
					errs <- fmt.Errorf("Search(%q) = %v, %v; want %v", texts[i], res.Hits, err, want[i])
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestExhaustiveEdgeCases(t *testing.T) {
	f := newFixture(t, 7, 100)
	e := query.NewExhaustive(f.ix)
	common := f.ix.Term(0).Term
	for i := range f.ix.NumTerms() {
		if f.ix.Term(i).DF > f.ix.Term(0).DF {
			common = f.ix.Term(i).Term
		}
	}
	tests := []struct {
		name  string
		q     query.Query
		empty bool
	}{
		{"k zero", query.Query{Terms: []string{common}, Mode: query.Or, K: 0}, true},
		{"k negative", query.Query{Terms: []string{common}, Mode: query.Or, K: -3}, true},
		{"no terms", query.Query{Mode: query.Or, K: 10}, true},
		{"only unknown terms", query.Query{Terms: []string{"qqunknown", "qqother"}, Mode: query.Or, K: 10}, true},
		{"and with an unknown term", query.Query{Terms: []string{common, "qqunknown"}, Mode: query.And, K: 10}, true},
		{"or ignores an unknown term", query.Query{Terms: []string{"qqunknown", common}, Mode: query.Or, K: 10}, false},
		{"andor falls back to or", query.Query{Terms: []string{common, "qqunknown"}, Mode: query.AndOr, K: 10}, false},
		{"k beyond the collection", query.Query{Terms: []string{common}, Mode: query.Or, K: 1 << 20}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := e.Search(context.Background(), tt.q)
			if err != nil {
				t.Fatalf("Search(%+v): %v", tt.q, err)
			}
			if (len(res.Hits) == 0) != tt.empty {
				t.Errorf("Search(%+v) = %d hits, want empty: %v", tt.q, len(res.Hits), tt.empty)
			}
			if tt.q.K > 0 && len(res.Hits) > tt.q.K {
				t.Errorf("Search(%+v) = %d hits, more than k", tt.q, len(res.Hits))
			}
		})
	}
	t.Run("postings scored", func(t *testing.T) {
		res, err := e.Search(context.Background(), query.Query{Terms: []string{common}, Mode: query.Or, K: 10})
		info, _ := f.ix.Lookup(common)
		if err != nil || res.Stats.PostingsScored != int64(info.DF) || res.Stats.BlocksDecoded != int64(info.NumBlocks(f.ix.BlockSize())) {
			t.Errorf("Stats = %+v, %v; want %d postings scored, %d blocks decoded", res.Stats, err, info.DF, info.NumBlocks(f.ix.BlockSize()))
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := e.Search(ctx, query.Query{Terms: []string{common}, Mode: query.Or, K: 10})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Search with a cancelled context: error = %v, want context.Canceled", err)
		}
	})
}

func TestParse(t *testing.T) {
	a := analysis.New()
	tests := []struct {
		text string
		want []string
	}{
		{"Running runs RUN", []string{"run"}},
		{"http server, HTTP Servers!", []string{"http", "server"}},
		{"", nil},
		{"  ... ", nil},
		{"b a b c a", []string{"b", "a", "c"}},
		// Past 16 distinct terms Parse finds duplicates in a map.
		{"w01 w02 w03 w04 w05 w06 w07 w08 w09 w10 w11 w12 w13 w14 w15 w16 w03 w17 w18 w01 w19 w18 w16",
			strings.Fields("w01 w02 w03 w04 w05 w06 w07 w08 w09 w10 w11 w12 w13 w14 w15 w16 w17 w18 w19")},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			q, err := query.Parse(a, tt.text, query.And, 7)
			if err != nil || !slices.Equal(q.Terms, tt.want) || q.Mode != query.And || q.K != 7 {
				t.Errorf("Parse(%q) = %+v, want terms %q, mode and, k 7", tt.text, q, tt.want)
			}
		})
	}
	for _, s := range []string{"and", "or", "andor"} {
		if m, err := query.ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	for _, s := range []string{"", "AND", "xor", "and "} {
		if _, err := query.ParseMode(s); err == nil {
			t.Errorf("ParseMode(%q) = nil error, want one", s)
		}
	}
}

// TestParseAll: each text parses as Parse parses it, in order, and a text
// Parse refuses fails the whole list with Parse's error.
func TestParseAll(t *testing.T) {
	a := analysis.New()
	tests := []struct {
		name    string
		texts   []string
		wantErr error
	}{
		{"none", nil, nil},
		{"several", []string{"Running runs", `"http server" timeout`, ""}, nil},
		{"an unbalanced quote", []string{"alpha", `"http server`, "bravo"}, query.ErrUnbalancedQuotes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			qs, err := query.ParseAll(a, tt.texts, query.Or, 5)
			if !errors.Is(err, tt.wantErr) || (err != nil) != (tt.wantErr != nil) {
				t.Fatalf("ParseAll(%q) error = %v, want %v", tt.texts, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if len(qs) != len(tt.texts) {
				t.Fatalf("ParseAll(%q) = %d queries, want %d", tt.texts, len(qs), len(tt.texts))
			}
			for i, text := range tt.texts {
				want, err := query.Parse(a, text, query.Or, 5)
				if err != nil || !reflect.DeepEqual(qs[i], want) {
					t.Errorf("ParseAll(%q)[%d] = %+v, want Parse's %+v (%v)", tt.texts, i, qs[i], want, err)
				}
			}
		})
	}
}
