package api

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
)

// TestDocumentRoute checks GET /documents/{docid}: the title always, the
// stored text with ?text=1 cut at server.max_document_bytes, and clear
// errors for unknown documents, bad parameters and an index without text.
func TestDocumentRoute(t *testing.T) {
	root := t.TempDir()
	crawl := filepath.Join(root, "crawl")
	os.MkdirAll(filepath.Join(crawl, "d.test"), 0o755)
	pages := []string{
		"<title>First page</title><p>caf\u00e9 text of the first page</p>",
		"<h1>Second</h1><p>" + strings.Repeat("\u00e9", 40) + "</p>",
		"",
	}
	for i, p := range pages {
		os.WriteFile(filepath.Join(crawl, "d.test", string(rune('a'+i))+".html"), []byte(p), 0o644)
	}
	build := func(store string) string {
		out := filepath.Join(root, store+".index")
		opts := indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Workers: 1, Store: store}
		if _, err := indexer.Build(context.Background(), crawl, out, opts); err != nil {
			t.Fatal(err)
		}
		return out
	}
	cfg := testConfig(build(index.StoreText))
	cfg.Server.MaxDocumentBytes = 22 // inside the second page's eighth é
	_, ts := newTestServer(t, cfg)
	titles := testConfig(build(index.StoreTitles))
	_, tts := newTestServer(t, titles)
	none := testConfig(build(index.StoreNone))
	_, nts := newTestServer(t, none)

	tests := []struct {
		name, base, path string
		status           int
		want             string // the JSON answer, or a part of an error
	}{
		{"title", ts.URL, "/documents/0", 200, `{"docid":0,"url":"http://d.test/a.html","title":"First page","length":8}`},
		{"text", ts.URL, "/documents/0?text=1", 200,
			`{"docid":0,"url":"http://d.test/a.html","title":"First page","length":8,"text":"First page café text ","text_bytes":39,"truncated":true}`},
		{"text cut at a character", ts.URL, "/documents/1?text=true", 200,
			`{"docid":1,"url":"http://d.test/b.html","title":"Second","length":2,"text":"Second ééééééé","text_bytes":87,"truncated":true}`},
		{"empty text", ts.URL, "/documents/2?text=1", 200, `{"docid":2,"url":"http://d.test/c.html","title":"","length":0,"text":""}`},
		{"text=0", ts.URL, "/documents/2?text=0", 200, `{"docid":2,"url":"http://d.test/c.html","title":"","length":0}`},
		{"unknown", ts.URL, "/documents/3", 404, "no document 3"},
		{"unknown with text", ts.URL, "/documents/3?text=1", 404, "no document 3"},
		{"bad text", ts.URL, "/documents/0?text=yes", 400, `text \"yes\"`},
		{"titles only", tts.URL, "/documents/0", 200, `{"docid":0,"url":"http://d.test/a.html","title":"First page","length":8}`},
		{"titles only: no text", tts.URL, "/documents/0?text=1", 409, "stores no text (index.store: titles)"},
		{"none", nts.URL, "/documents/0", 200, `{"docid":0,"url":"http://d.test/a.html","title":"","length":8}`},
		{"none: no text", nts.URL, "/documents/0?text=1", 409, "index.store: none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := do(t, ts.Client(), "GET", tt.base+tt.path, "")
			if status != tt.status {
				t.Fatalf("status %d, want %d: %s", status, tt.status, body)
			}
			if status == 200 {
				var got, want any
				if err := json.Unmarshal([]byte(body), &got); err != nil {
					t.Fatal(err)
				}
				json.Unmarshal([]byte(tt.want), &want)
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(want)
				if string(g) != string(w) {
					t.Errorf("answer %s, want %s", g, w)
				}
			} else if !strings.Contains(body, tt.want) {
				t.Errorf("answer %s, want it to contain %s", body, tt.want)
			}
		})
	}
}
