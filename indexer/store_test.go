package indexer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
)

// TestBuildStore checks what Build stores of each document for each
// index.store: the title and extracted text, in docid order.
func TestBuildStore(t *testing.T) {
	crawl := t.TempDir()
	files := map[string]string{
		"a.html": "<html><head><title>Alpha  page</title></head><body><h1>Head</h1><p>alpha text</p></body></html>",
		"b.html": "<p>intro</p><h2>Bravo heading</h2><p>bravo body</p>",
		"c.txt":  "\n  Charlie first line \nsecond line",
		"d.html": "<script>x()</script><p>delta only</p>",
		"e.md":   strings.Repeat("echo words ", 5000),
	}
	want := map[string]index.Document{
		"a.html": {Title: "Alpha page", Text: "Alpha  page Head alpha text"},
		"b.html": {Title: "Bravo heading", Text: "intro Bravo heading bravo body"},
		"c.txt":  {Title: "Charlie first line", Text: files["c.txt"]},
		"d.html": {Title: "delta only", Text: "delta only"},
		"e.md":   {Title: strings.TrimSpace(files["e.md"][:512]), Text: files["e.md"]},
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(crawl, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, store := range []string{"", index.StoreNone, index.StoreTitles, index.StoreText} {
		t.Run("store="+store, func(t *testing.T) {
			ix, _, _ := build(t, crawl, indexer.Options{Store: store, DocIDCodec: "varint-SU", FreqCodec: "varint-SU"})
			if store == "" {
				store = index.StoreText
			}
			if ix.Store() != store {
				t.Errorf("Store() = %q, want %q", ix.Store(), store)
			}
			for d := range uint32(ix.NumDocs()) {
				got, err := ix.Document(d, true)
				if err != nil {
					t.Fatal(err)
				}
				w := want[got.URL]
				w.URL = got.URL
				if store == index.StoreNone {
					w.Title = ""
				}
				if store != index.StoreText {
					w.Text = ""
				}
				if got != w {
					t.Errorf("Document(%d) = %.80q, want %.80q", d, got, w)
				}
			}
		})
	}
	t.Run("passages", func(t *testing.T) {
		ix, _, _ := build(t, crawl, indexer.Options{Passages: 100, DocIDCodec: "varint-SU", FreqCodec: "varint-SU"})
		if ix.Store() != index.StoreTitles {
			t.Errorf("passage mode: Store() = %q, want titles", ix.Store())
		}
		for d := range uint32(ix.NumDocs()) {
			got, err := ix.Document(d, true)
			if err != nil {
				t.Fatal(err)
			}
			page, _, _ := strings.Cut(got.URL, "#")
			if w := want[page].Title; got.Title != w {
				t.Errorf("passage %s: title %q, want %q", got.URL, got.Title, w)
			}
		}
	})
	if _, err := indexer.Build(t.Context(), crawl, t.TempDir(), indexer.Options{Store: "all"}); err == nil {
		t.Error("Build with store \"all\": no error")
	}
}
