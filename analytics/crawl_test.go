package analytics

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"

	_ "github.com/gpusearch/gpusearch/codecplugins/all"
)

// exampleCrawl is the sample crawl shipped with the repository.
var exampleCrawl = filepath.Join("..", "examples", "crawl")

var real struct {
	once sync.Once
	c    *Corpus
	urls []string
	docs [][]string
	err  error
}

// realCorpus compresses the sample crawl (once per test binary) and reads
// its documents' words straight from the analysis, not through the grammar.
func realCorpus(t *testing.T) (*Corpus, []string, [][]string) {
	t.Helper()
	if testing.Short() {
		t.Skip("compressing the sample crawl takes a few seconds")
	}
	real.once.Do(func() {
		real.c, _, real.err = Compress(context.Background(), exampleCrawl, CompressOptions{})
		if real.err != nil {
			return
		}
		var docs []indexer.Document
		if docs, _, real.err = indexer.Documents(context.Background(), exampleCrawl, indexer.Options{}); real.err != nil {
			return
		}
		a := analysis.New()
		for _, d := range docs {
			text, _, _, err := d.Text(0)
			if err != nil {
				real.err = err
				return
			}
			real.urls = append(real.urls, d.URL)
			real.docs = append(real.docs, a.Terms(string(text)))
		}
	})
	if real.err != nil {
		t.Fatal(real.err)
	}
	return real.c, real.urls, real.docs
}

func wordsOf(c *Corpus, ids [][]uint32) [][]string {
	out := make([][]string, len(ids))
	for d, doc := range ids {
		out[d] = make([]string, len(doc))
		for i, w := range doc {
			out[d][i] = c.Dict[w]
		}
	}
	return out
}

func TestCompressRealCrawl(t *testing.T) {
	c, urls, docs := realCorpus(t)
	dir := t.TempDir()
	if err := c.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	back, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.URLs, urls) {
		t.Errorf("URLs = %v..., want %v...", back.URLs[:3], urls[:3])
	}
	if got := wordsOf(back, back.Decompress()); !reflect.DeepEqual(got, docs) {
		t.Errorf("decompressed documents differ from the analysis of the crawl")
	}
	if !slices.Equal(back.Dict, c.Dict) || !reflect.DeepEqual(back.Grammar, c.Grammar) {
		t.Errorf("Open(WriteDir(c)) differs from c")
	}
	var tokens uint64
	for _, d := range docs {
		tokens += uint64(len(d))
	}
	m := back.Meta
	if m.Tokens != tokens || m.Documents != len(docs) {
		t.Errorf("meta: %d tokens in %d documents, want %d in %d", m.Tokens, m.Documents, tokens, len(docs))
	}
	if m.GzipTextBytes <= 0 || m.GzipWordBytes <= 0 || m.TextBytes <= m.GzipTextBytes || m.CompressedBytes() <= 0 {
		t.Errorf("meta sizes: text %d gzip %d words gzip %d compressed %d", m.TextBytes, m.GzipTextBytes, m.GzipWordBytes, m.CompressedBytes())
	}
	if uint64(m.CompressedBytes()) >= m.Tokens*2 {
		t.Errorf("compressed %d bytes for %d words: the grammar does not compress", m.CompressedBytes(), m.Tokens)
	}
}

func TestTasksRealCrawl(t *testing.T) {
	c, _, docs := realCorpus(t)
	checkTasks(t, c, docs, []int{3})
}

// TestIndexFromCompressed builds the sample crawl's index both ways and
// compares every posting through the index's cursors.
func TestIndexFromCompressed(t *testing.T) {
	c, _, _ := realCorpus(t)
	ctx := context.Background()
	direct := t.TempDir()
	if _, err := indexer.Build(ctx, exampleCrawl, direct, indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	want, err := index.Open(direct)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	for _, tr := range []Traversal{TopDown, BottomUp} {
		t.Run(tr.String(), func(t *testing.T) {
			dir := t.TempDir()
			opts := index.WriterOptions{DocIDCodec: "bp128", FreqCodec: "bp128"}
			if _, err := BuildIndex(ctx, c, dir, opts, tr); err != nil {
				t.Fatal(err)
			}
			got, err := index.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Close()
			compareIndexes(t, got, want)
		})
	}
}

func compareIndexes(t *testing.T, got, want *index.Index) {
	t.Helper()
	if got.NumDocs() != want.NumDocs() || got.NumTerms() != want.NumTerms() {
		t.Fatalf("index has %d docs and %d terms, want %d and %d", got.NumDocs(), got.NumTerms(), want.NumDocs(), want.NumTerms())
	}
	for d := range want.NumDocs() {
		if got.URL(uint32(d)) != want.URL(uint32(d)) || got.DocLen(uint32(d)) != want.DocLen(uint32(d)) {
			t.Fatalf("doc %d = %s (%d words), want %s (%d words)", d, got.URL(uint32(d)), got.DocLen(uint32(d)), want.URL(uint32(d)), want.DocLen(uint32(d)))
		}
	}
	for i := range want.NumTerms() {
		gt, wt := got.Term(i), want.Term(i)
		if gt != wt {
			t.Fatalf("term %d = %+v, want %+v", i, gt, wt)
		}
		gc, wc := got.Cursor(gt), want.Cursor(wt)
		for wc.DocID() != index.NoMoreDocs {
			if gc.DocID() != wc.DocID() || gc.Freq() != wc.Freq() {
				t.Fatalf("term %q: posting (%d, %d), want (%d, %d)", wt.Term, gc.DocID(), gc.Freq(), wc.DocID(), wc.Freq())
			}
			gc.Next()
			wc.Next()
		}
		if gc.DocID() != index.NoMoreDocs {
			t.Fatalf("term %q: extra posting %d", wt.Term, gc.DocID())
		}
	}
}

// writeCrawl writes files (relative path -> content) under a new directory.
func writeCrawl(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCompressModes(t *testing.T) {
	crawl := writeCrawl(t, map[string]string{
		"example.com/b.html":  "<html><title>Running Dogs</title><body><p>The dogs ran.</p><script>x y</script></body></html>",
		"example.com/a.txt":   "Running dogs, running DOGS!",
		"example.com/c.md":    "",
		"example.com/img.png": "\x89PNG",
	})
	tests := []struct {
		name string
		raw  bool
		want [][]string
	}{
		{"index", false, [][]string{{"run", "dog", "run", "dog"}, {"run", "dog", "the", "dog", "ran"}, {}}},
		{"raw", true, [][]string{{"running", "dogs", "running", "dogs"}, {"running", "dogs", "the", "dogs", "ran"}, {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rep, err := Compress(context.Background(), crawl, CompressOptions{Raw: tt.raw, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if got := wordsOf(c, c.Decompress()); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Compress(raw=%v) words = %q, want %q", tt.raw, got, tt.want)
			}
			wantURLs := []string{"http://example.com/a.txt", "http://example.com/b.html", "http://example.com/c.md"}
			if !slices.Equal(c.URLs, wantURLs) {
				t.Errorf("URLs = %q, want %q", c.URLs, wantURLs)
			}
			if rep.Walk.Unsupported.Count != 1 {
				t.Errorf("unsupported files = %d, want 1", rep.Walk.Unsupported.Count)
			}
			_, err = BuildIndex(context.Background(), c, t.TempDir(), index.WriterOptions{DocIDCodec: "bp128", FreqCodec: "bp128"}, Auto)
			if (err != nil) != tt.raw {
				t.Errorf("BuildIndex(raw=%v) error = %v", tt.raw, err)
			}
		})
	}
	if _, _, err := Compress(context.Background(), filepath.Join(crawl, "missing"), CompressOptions{}); err == nil {
		t.Error("Compress(missing directory) = nil error, want one")
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Compress(cancelled, crawl, CompressOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Compress(cancelled) error = %v, want context.Canceled", err)
	}
}
