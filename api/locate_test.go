package api

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/snippet"
)

// TestDescribeLocated checks snippets made from the window of the
// word-coded text that positions point at against snippets made from the
// whole text, on random documents of five to 3,000 words and random
// queries with phrases: a window marked by the stored tokens' terms reads
// as the same window scanned and analyzed; where the text is shorter than
// a snippet the two are the same; elsewhere every mark is a word of a
// query term, the snippet is the text's own, and it holds a query unit
// whenever the document does; a hit described alone reads as it does
// among a page's, where one maker serves hit after hit, and a page
// described on several goroutines reads as on one.
func TestDescribeLocated(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	vocab := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon running runs ran café naïve 3.14 don't http.Server")
	root := t.TempDir()
	crawl := filepath.Join(root, "crawl", "r.test")
	if err := os.MkdirAll(crawl, 0o755); err != nil {
		t.Fatal(err)
	}
	texts := make([]string, 60)
	for d := range texts {
		var b strings.Builder
		for range 5 + r.IntN([]int{100, 400, 3000}[r.IntN(3)]) {
			b.WriteString(vocab[r.IntN(len(vocab))])
			b.WriteString([]string{" ", " ", " ", "\n", ", ", ". "}[r.IntN(6)])
		}
		texts[d] = b.String()
		if err := os.WriteFile(filepath.Join(crawl, fmt.Sprintf("d%03d.txt", d)), []byte(texts[d]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(root, "index")
	opts := indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Workers: 2, Store: index.StoreText, Positions: true}
	if _, err := indexer.Build(context.Background(), filepath.Dir(crawl), out, opts); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !ix.WordText() || !ix.HasPositions() {
		t.Fatal("the index does not store word-coded text and positions")
	}
	a := analysis.New()
	same, checked := 0, 0
	for range 200 {
		var raw []string
		for range 1 + r.IntN(3) {
			w := vocab[r.IntN(len(vocab))]
			if r.IntN(4) == 0 {
				w = `"` + w + " " + vocab[r.IntN(len(vocab))] + `"`
			}
			raw = append(raw, w)
		}
		q, err := query.Parse(a, strings.Join(raw, " "), query.Or, 10)
		if err != nil || len(q.Terms) == 0 {
			continue
		}
		var hits []Hit
		for d := range len(texts) {
			hits = append(hits, Hit{DocID: uint32(d)})
		}
		located := slices.Clone(hits)
		if err := Describe(ix, a, q, located, 160, false, 1); err != nil {
			t.Fatal(err)
		}
		// Hits shared among goroutines read as they do in turn on one.
		parallel := slices.Clone(hits)
		if err := Describe(ix, a, q, parallel, 160, false, 4); err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(parallel, located, sameDescription) {
			t.Fatalf("query %q: described on 4 goroutines, the page differs from one goroutine's", raw)
		}
		// One maker serves a page's hits in turn: each alone must
		// read the same.
		for i := range located {
			alone := slices.Clone(hits[i : i+1])
			if err := Describe(ix, a, q, alone, 160, false, 1); err != nil {
				t.Fatal(err)
			}
			if got := alone[0]; !sameDescription(got, located[i]) {
				t.Fatalf("query %q doc %d: alone %q, on a page %q", raw, got.DocID, marks(got), marks(located[i]))
			}
		}
		whole := slices.Clone(hits)
		if err := describeWhole(ix, a, q, whole, 160); err != nil {
			t.Fatal(err)
		}
		for i, h := range located {
			doc, _ := ix.Document(h.DocID, true)
			checked++
			if sc, ok := scannedWindow(t, ix, a, q, h.DocID); ok && (sc.Text != h.Snippet || !slices.Equal(sc.Highlights, h.Highlights)) {
				t.Fatalf("query %q doc %d: window marked by its tokens %q, scanned %q", raw, h.DocID, marks(h), marks(Hit{Snippet: sc.Text, Highlights: sc.Highlights}))
			}
			if len(doc.Text) <= 160 {
				if h.Snippet != whole[i].Snippet || !slices.Equal(h.Highlights, whole[i].Highlights) {
					t.Fatalf("query %q doc %d shorter than a snippet: located %q, whole %q", raw, h.DocID, marks(h), marks(whole[i]))
				}
				same++
				continue
			}
			inner := strings.Trim(h.Snippet, "…")
			if !strings.Contains(strings.Join(strings.Fields(doc.Text), " "), inner) {
				t.Fatalf("query %q doc %d: snippet %q is not the text's", raw, h.DocID, h.Snippet)
			}
			for _, hl := range h.Highlights {
				terms := a.Terms(h.Snippet[hl[0]:hl[1]])
				if len(terms) != 1 || !slices.Contains(q.Terms, terms[0]) {
					t.Fatalf("query %q doc %d: mark %q is no query term", raw, h.DocID, h.Snippet[hl[0]:hl[1]])
				}
			}
			if len(whole[i].Highlights) > 0 && len(h.Highlights) == 0 {
				t.Fatalf("query %q doc %d: located snippet %q marks nothing, whole text's %q does", raw, h.DocID, marks(h), marks(whole[i]))
			}
		}
	}
	if same == 0 || checked == same {
		t.Fatalf("%d of %d snippets of texts shorter than a snippet: want both kinds", same, checked)
	}
}

// scannedWindow is the snippet Describe makes of doc from its window,
// the window's text scanned and analyzed rather than marked by the
// stored tokens; false where it marks nothing (Describe then scans the
// whole text).
func scannedWindow(t *testing.T, ix *index.Index, a *analysis.Analyzer, q query.Query, doc uint32) (snippet.Snippet, bool) {
	m := snippet.New(snippet.Query{Terms: q.Terms, Phrases: q.Phrases}, 160)
	lk, err := new(page).lookUp(ix, q.Terms, []Hit{{DocID: doc}}, true)
	if err != nil {
		t.Fatal(err)
	}
	from, to, _ := m.Locate(q.Terms, lk.positions[0])
	tt, err := ix.TextTerms(q.Terms)
	if err != nil {
		t.Fatal(err)
	}
	var w index.TextWindow
	if err := ix.TextWindow(doc, from, to, windowBefore(m), windowAfter(m), tt, &w); err != nil {
		t.Fatal(err)
	}
	if w.AtEnd && !w.AtStart {
		if err := ix.TextWindow(doc, from, to, m.Size()+16, windowAfter(m), tt, &w); err != nil {
			t.Fatal(err)
		}
	}
	sn := m.MakeIn(a, string(w.Text), w.AtStart, w.AtEnd, nil)
	return sn, len(sn.Highlights) > 0
}

// sameDescription reports whether two described hits read the same.
func sameDescription(x, y Hit) bool {
	return x.DocID == y.DocID && x.Title == y.Title && x.Snippet == y.Snippet && slices.Equal(x.Highlights, y.Highlights)
}

// describeWhole is Describe's whole-text path: each snippet made from its
// document's whole text.
func describeWhole(ix *index.Index, a *analysis.Analyzer, q query.Query, hits []Hit, size int) error {
	for i := range hits {
		doc, err := ix.Document(hits[i].DocID, true)
		if err != nil {
			return err
		}
		sn := snippet.New(snippet.Query{Terms: q.Terms, Phrases: q.Phrases}, size).Make(a, doc.Text, nil)
		hits[i].Snippet, hits[i].Highlights = sn.Text, sn.Highlights
	}
	return nil
}
