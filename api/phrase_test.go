package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// TestSearchPhrases: a quoted phrase narrows the hits to the exhaustive
// reference's, cached apart from the same words unquoted; unbalanced
// quotes are a 400; on an index without positions a phrase is a 409 and
// a query without one still answers.
func TestSearchPhrases(t *testing.T) {
	_, ts := newTestServer(t, testConfig(indexA))
	ix, err := index.Open(indexA)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ref := query.NewExhaustive(ix)
	narrower := false
	for _, text := range []string{`"alpha bravo"`, `alpha bravo`, `"alpha alpha" golf`, `"bravo alpha"`, `"zulu jasper"`} {
		for _, mode := range []string{"and", "or"} {
			q, err := query.Parse(analysis.New(), text, query.Mode(mode), 10)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // the second answer comes from the cache
				status, body, err := fetch(ts.Client(), "GET", ts.URL+"/search?"+url.Values{"q": {text}, "mode": {mode}, "engine": {"cpu"}}.Encode(), "")
				if err != nil || status != http.StatusOK {
					t.Fatalf("%s %s: %d %s %v", text, mode, status, body, err)
				}
				var resp SearchResponse
				if err := json.Unmarshal([]byte(body), &resp); err != nil {
					t.Fatal(err)
				}
				if len(resp.Hits) != len(want.Hits) {
					t.Fatalf("%s %s: %d hits, want %d", text, mode, len(resp.Hits), len(want.Hits))
				}
				for i, h := range resp.Hits {
					if h.DocID != want.Hits[i].DocID || h.Score != want.Hits[i].Score {
						t.Fatalf("%s %s: hit %d is %d (%v), want %v", text, mode, i, h.DocID, h.Score, want.Hits[i])
					}
				}
			}
			if len(q.Phrases) > 0 && len(want.Hits) < 10 {
				narrower = true
			}
		}
	}
	if !narrower {
		t.Error("no phrase narrowed a query below 10 hits: the test checks little")
	}
	status, body, _ := fetch(ts.Client(), "GET", ts.URL+"/search?q=%22alpha+bravo", "")
	if status != http.StatusBadRequest || !strings.Contains(body, "unbalanced") {
		t.Errorf("unbalanced quote: %d %s, want 400 naming it", status, body)
	}

	plain := testindex.Write(t, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"},
		[]uint32{2}, []string{"http://c.test/0"},
		testindex.Postings{Term: "alpha", DocIDs: []uint32{0}, Freqs: []uint32{1}},
		testindex.Postings{Term: "bravo", DocIDs: []uint32{0}, Freqs: []uint32{1}})
	_, nopos := newTestServer(t, testConfig(plain.Dir()))
	for _, tc := range []struct {
		q, want string
		status  int
	}{
		{`"alpha bravo"`, "rebuild with index.positions: true", http.StatusConflict},
		{`alpha bravo`, `"docid":0`, http.StatusOK},
	} {
		for _, engine := range []string{"auto", "cpu", "exhaustive", "bitmap"} {
			status, body, _ := fetch(nopos.Client(), "GET", nopos.URL+"/search?"+url.Values{"q": {tc.q}, "engine": {engine}}.Encode(), "")
			if status != tc.status || !strings.Contains(body, tc.want) {
				t.Errorf("%s on %s without positions: %d %s, want %d with %q", tc.q, engine, status, body, tc.status, tc.want)
			}
		}
	}
}
