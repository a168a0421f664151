// Package testindex builds the small indexes tests search: the sample
// crawl of examples/crawl, and indexes written posting list by posting
// list. Only tests import it; a test importing it also imports the codec
// plugins its indexes name.
package testindex

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
)

// Crawl indexes the sample crawl with o into a temporary directory and
// opens it; the index is closed when the test ends.
func Crawl(t testing.TB, o indexer.Options) *index.Index {
	t.Helper()
	dir := t.TempDir()
	if _, err := indexer.Build(context.Background(), crawlDir(t), dir, o); err != nil {
		t.Fatalf("indexer.Build: %v", err)
	}
	return open(t, dir)
}

// crawlDir finds examples/crawl at the module's root, the first directory
// above the working directory (the test's package) that holds go.mod.
func crawlDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "examples", "crawl")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testindex: no go.mod above the working directory")
		}
		dir = parent
	}
}

// hostilePage is a page whose title and text hold markup, as text.
const hostilePage = `<html><head><title>&lt;script&gt;alert(1)&lt;/script&gt; server timeout</title></head>
<body><p>A text with &lt;script&gt;alert(2)&lt;/script&gt; in it, and a server timeout.</p></body></html>`

// HostileCrawl writes into dir/crawl, and returns, a crawl of the sample
// crawl's net/http pages and pkg.go.dev/evil.html, a page whose title
// and text hold <script> as text: what the search pages must escape.
func HostileCrawl(t testing.TB, dir string) string {
	t.Helper()
	crawl := filepath.Join(dir, "crawl")
	pages, err := filepath.Glob(filepath.Join(crawlDir(t), "pkg.go.dev", "net", "http", "*.html"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("the sample crawl's net/http pages: %v", err)
	}
	files := map[string][]byte{"pkg.go.dev/evil.html": []byte(hostilePage)}
	for _, p := range pages {
		if files["pkg.go.dev/net/http/"+filepath.Base(p)], err = os.ReadFile(p); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range files {
		path := filepath.Join(crawl, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return crawl
}

// Shards splits ix into n shards in a temporary directory and opens
// them; they are closed when the test ends.
func Shards(t testing.TB, ix *index.Index, n int) []*index.Index {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "coll")
	if _, err := index.Split(context.Background(), ix, dir, n, index.SplitOptions{}); err != nil {
		t.Fatalf("Split into %d: %v", n, err)
	}
	shards, _, err := index.OpenSharded(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, s := range shards {
			s.Close()
		}
	})
	return shards
}

// Postings is one term's posting list: its documents in increasing order
// and the term's frequency in each, and for an index with positions
// (o.Positions) its positions, each posting's after the other's.
type Postings struct {
	Term          string
	DocIDs, Freqs []uint32
	Positions     []uint32
}

// Write writes an index of the documents of lengths lens at urls, with o
// and the posting lists of terms (in increasing term order), into a
// temporary directory and opens it; the index is closed when the test
// ends.
func Write(t testing.TB, o index.WriterOptions, lens []uint32, urls []string, terms ...Postings) *index.Index {
	t.Helper()
	dir := t.TempDir()
	w, err := index.NewWriter(dir, o, lens, urls)
	if err != nil {
		t.Fatalf("index.NewWriter: %v", err)
	}
	for _, p := range terms {
		add := w.AddTerm
		if o.Positions {
			add = func(term string, docids, freqs []uint32) error {
				return w.AddTermPositions(term, docids, freqs, p.Positions)
			}
		}
		if err := add(p.Term, p.DocIDs, p.Freqs); err != nil {
			t.Fatalf("AddTerm(%s): %v", p.Term, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("closing the writer: %v", err)
	}
	return open(t, dir)
}

// open opens the index in dir until the test ends.
func open(t testing.TB, dir string) *index.Index {
	t.Helper()
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatalf("index.Open: %v", err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}
