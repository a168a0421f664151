package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/indexer"
)

// storyPages are the pages of the small crawl the results tests search:
// titles and texts with markup to escape, stemmed forms and a phrase.
var storyPages = map[string]string{
	"run.html": `<html><head><title>Running &lt;script&gt;alert(1)&lt;/script&gt; dogs</title></head>
<body><p>The dogs were running in the park. Nothing else happened that day, or the next.</p>
<p>Quotes: "5 &lt; 6" &amp; <b>bold</b> <script>alert("no")</script></p></body></html>`,
	"york.html": `<html><head><title>A trip</title></head><body><p>York is new to me. ` +
		`Some filler words here to push the phrase away from the start of the text, ` +
		`more filler words and yet more of them until the window moves on. ` +
		`Then I saw New York at last, and New York saw me.</p></body></html>`,
	"plain.txt": "plain text first line\nsecond line about dogs running",
}

// buildStoryIndex indexes storyPages under root with the given store mode.
func buildStoryIndex(t *testing.T, store string) string {
	t.Helper()
	root := t.TempDir()
	crawl := filepath.Join(root, "crawl", "s.test")
	if err := os.MkdirAll(crawl, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range storyPages {
		if err := os.WriteFile(filepath.Join(crawl, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(root, "index")
	opts := indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Workers: 1, Store: store, Positions: true}
	if _, err := indexer.Build(context.Background(), filepath.Dir(crawl), out, opts); err != nil {
		t.Fatal(err)
	}
	return out
}

// searchJSON asks the server for /search?query and decodes the answer.
func searchJSON(t *testing.T, s *Server, query string) SearchResponse {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/search?"+query, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/search?%s = %d %s", query, rec.Code, rec.Body)
	}
	var r SearchResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// marks shows a hit's snippet with its highlights in brackets.
func marks(h Hit) string {
	var b strings.Builder
	at := 0
	for _, r := range h.Highlights {
		b.WriteString(h.Snippet[at:r[0]] + "[" + h.Snippet[r[0]:r[1]] + "]")
		at = r[1]
	}
	return b.String() + h.Snippet[at:]
}

func TestSearchTitlesAndSnippets(t *testing.T) {
	ix := buildStoryIndex(t, "text")
	s, err := New(Options{Config: testConfig(ix)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tests := []struct {
		name, query string
		want        map[string][2]string // URL's file -> title, marked snippet
		html        string               // the run.html hit's snippet_html, if asked for
	}{
		{"stems and escapes", "q=run&mode=or", map[string][2]string{
			"run.html": {"Running <script>alert(1)</script> dogs",
				`[Running] <script>alert(1)</script> dogs The dogs were [running] in the park. Nothing else happened that day, or the next. Quotes: "5 < 6" & bold`},
			"plain.txt": {"plain text first line", "plain text first line second line about dogs [running]"},
		}, ""},
		{"html", "q=running+dogs&mode=and&highlight=html", map[string][2]string{
			"run.html": {"Running <script>alert(1)</script> dogs",
				`[Running] <script>alert(1)</script> [dogs] The [dogs] were [running] in the park. Nothing else happened that day, or the next. Quotes: "5 < 6" & bold`},
			"plain.txt": {"plain text first line", "plain text first line second line about [dogs] [running]"},
		}, `<mark>Running</mark> &lt;script&gt;alert(1)&lt;/script&gt; <mark>dogs</mark> The <mark>dogs</mark> were <mark>running</mark> in the park. ` +
			`Nothing else happened that day, or the next. Quotes: &#34;5 &lt; 6&#34; &amp; bold`},
		{"phrase", `q="new+york"`, map[string][2]string{
			"york.html": {"A trip", "…the phrase away from the start of the text, more filler words and yet more of them until the window moves on. Then I saw [New] [York] at last, and [New] [York] saw me."},
		}, ""},
		{"no snippets", "q=dogs&snippets=0", map[string][2]string{
			"run.html":  {"Running <script>alert(1)</script> dogs", ""},
			"plain.txt": {"plain text first line", ""},
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := searchJSON(t, s, tt.query)
			if len(r.Hits) != len(tt.want) {
				t.Fatalf("%d hits, want %d: %+v", len(r.Hits), len(tt.want), r.Hits)
			}
			for _, h := range r.Hits {
				want, ok := tt.want[filepath.Base(h.URL)]
				if !ok {
					t.Fatalf("unexpected hit %s", h.URL)
				}
				if h.Title != want[0] || marks(h) != want[1] {
					t.Errorf("%s: title %q, snippet %q; want %q, %q", h.URL, h.Title, marks(h), want[0], want[1])
				}
				if filepath.Base(h.URL) == "run.html" && h.SnippetHTML != tt.html {
					t.Errorf("snippet_html %q, want %q", h.SnippetHTML, tt.html)
				}
			}
		})
	}
}

// TestSearchWithoutStore checks that an index storing no text gives titles
// only, and one storing nothing neither, without an error.
func TestSearchWithoutStore(t *testing.T) {
	for _, store := range []string{"titles", "none"} {
		t.Run(store, func(t *testing.T) {
			s, err := New(Options{Config: testConfig(buildStoryIndex(t, store))})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			r := searchJSON(t, s, "q=york&highlight=html")
			if len(r.Hits) != 1 {
				t.Fatalf("hits %+v, want york.html", r.Hits)
			}
			h := r.Hits[0]
			if want := map[string]string{"titles": "A trip", "none": ""}[store]; h.Title != want {
				t.Errorf("title %q, want %q", h.Title, want)
			}
			if h.Snippet != "" || h.Highlights != nil || h.SnippetHTML != "" {
				t.Errorf("a snippet from an index storing %s: %+v", store, h)
			}
		})
	}
}

func TestSearchSnippetParams(t *testing.T) {
	s, err := New(Options{Config: testConfig(indexA)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{"q=alpha&snippets=2", "q=alpha&snippets=no", "q=alpha&highlight=bold"} {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/search?"+q, nil))
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), strings.Split(strings.Split(q, "&")[1], "=")[0]) {
			t.Errorf("/search?%s = %d %s, want a 400 naming the parameter", q, rec.Code, rec.Body)
		}
	}
}
