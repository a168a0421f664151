package indexer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/codecplugins"
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
)

// testCodecs are the codecs the build tests run with: varint-SU always, and
// bp128 once codecplugins/all registers it.
func testCodecs() []string {
	codecs := []string{"varint-SU"}
	if slices.Contains(codecplugins.Names(), "bp128") {
		codecs = append(codecs, "bp128")
	}
	return codecs
}

// corpus is a generated crawl: file contents by slash-separated relative
// path, and for each document the text an indexer must see in it.
type corpus struct {
	files map[string][]byte
	text  map[string]string // documents only
}

// hidden words appear only where an indexer must not look: scripts,
// styles, comments, attributes, noscript, templates.
var hiddenWords = []string{"qqscript", "qqstyle", "qqcomment", "qqattr", "qqnoscript", "qqtemplate"}

// genCorpus writes nDocs documents of Zipf-distributed words in a
// host/path layout: .txt, .md, .html and .htm files under host-like and
// plain directories, nested up to three deep, some empty.
func genCorpus(seed uint64, nDocs int) corpus {
	r := rand.New(rand.NewPCG(seed, seed+1))
	syll := []string{"ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "ve", "ing", "ed", "er", "tion", "s", "ly", "an", "or", "ble"}
	vocab := make([]string, 3000)
	for i := range vocab {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		w := b.String()
		switch r.IntN(40) {
		case 0:
			w = strings.ToUpper(w[:1]) + w[1:]
		case 1:
			w += fmt.Sprint(r.IntN(100))
		case 2:
			w = "naïve" + w
		case 3:
			w = "日本語"
		case 4:
			w = strings.Repeat(w, analysis.MaxTokenLen/len(w)+1) // too long to index
		}
		vocab[i] = w
	}
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(vocab)-1))
	words := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vocab[zipf.Uint64()]
		}
		sep := []string{" ", "  ", "\n", ", ", ". "}[r.IntN(5)]
		return strings.Join(ws, sep)
	}
	dirs := []string{"example.com", "example.com/a", "example.com/a/b", "www.test.org:8080/docs", "localhost/x", "notes", "notes/deep/er", "example", "a-b.net"}
	c := corpus{files: map[string][]byte{}, text: map[string]string{}}
	for i := 0; len(c.text) < nDocs; i++ {
		dir := dirs[r.IntN(len(dirs))]
		n := r.IntN(300)
		if r.IntN(20) == 0 {
			n = 0
		}
		var rel string
		switch k := r.IntN(4); k {
		case 0, 1:
			ext := []string{".html", ".htm"}[k]
			rel = fmt.Sprintf("%s/page%d%s", dir, i, ext)
			title, h1, p1, p2 := words(n/10), words(n/10), words(n/2), words(n-n/10*2-n/2)
			html := fmt.Sprintf(`<!DOCTYPE html><html><head><title>%s</title>
<style>.c { color: red } qqstyle</style><script>var qqscript = "<p>x</p>";</script></head>
<body><!-- qqcomment --><h1 class="qqattr">%s</h1><p>%s</p><noscript>qqnoscript</noscript>
<template><p>qqtemplate</p></template><div><p>%s &amp; caf&eacute;</p></div></body></html>`, title, h1, p1, p2)
			c.files[rel] = []byte(html)
			c.text[rel] = strings.Join([]string{title, h1, p1, p2, "& café"}, " ")
		default:
			ext := []string{".txt", ".md"}[k-2]
			rel = fmt.Sprintf("%s/doc%d%s", dir, i, ext)
			if r.IntN(30) == 0 {
				rel = fmt.Sprintf("top%d.txt", i) // at the root: no host
			}
			text := words(n)
			c.files[rel] = []byte(text)
			c.text[rel] = text
		}
	}
	return c
}

// write lays the corpus out under root.
func (c corpus) write(t testing.TB, root string) {
	t.Helper()
	for rel, b := range c.files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// urlFor is the URL rule of package indexer, written out again.
func urlFor(rel string) string {
	host, _, ok := strings.Cut(rel, "/")
	if ok && (strings.Contains(host, ".") || host == "localhost") {
		return "http://" + rel
	}
	return rel
}

// posting is one (docid, tf) pair of the reference inversion.
type posting struct{ doc, tf uint32 }

// reference is the test's own inversion of a corpus, for one docid
// assignment.
type reference struct {
	urls     []string // by docid
	lens     []uint32
	terms    []string // sorted
	lists    map[string][]posting
	tokens   uint64
	byURL    map[string]uint32 // url -> docid
	postings uint64
}

// invert analyses each document's text and inverts it, giving docids in
// the order of urls.
func invert(urls []string, text map[string]string) reference {
	a := analysis.New()
	ref := reference{urls: urls, lists: map[string][]posting{}, byURL: map[string]uint32{}}
	for d, u := range urls {
		ref.byURL[u] = uint32(d)
		tfs := map[string]uint32{}
		var n uint32
		a.Analyze([]byte(text[u]), func(term string) { tfs[term]++; n++ })
		ref.lens = append(ref.lens, n)
		ref.tokens += uint64(n)
		for term, tf := range tfs {
			ref.lists[term] = append(ref.lists[term], posting{uint32(d), tf})
		}
	}
	for term := range ref.lists {
		ref.terms = append(ref.terms, term)
		ref.postings += uint64(len(ref.lists[term]))
	}
	sort.Strings(ref.terms)
	return ref
}

// textByURL keys the corpus's document texts by URL.
func (c corpus) textByURL() map[string]string {
	m := map[string]string{}
	for rel, s := range c.text {
		m[urlFor(rel)] = s
	}
	return m
}

// sortedURLs is the URL order of the corpus's documents.
func (c corpus) sortedURLs() []string {
	var urls []string
	for rel := range c.text {
		urls = append(urls, urlFor(rel))
	}
	sort.Strings(urls)
	return urls
}

// build runs indexer.Build and opens the result.
func build(t testing.TB, crawl string, opts indexer.Options) (*index.Index, indexer.Report, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "idx")
	rep, err := indexer.Build(context.Background(), crawl, out, opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	ix, err := index.Open(out)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, rep, out
}

// compare checks every document and posting list of ix against ref.
func compare(t *testing.T, ix *index.Index, ref reference) {
	t.Helper()
	if ix.NumDocs() != len(ref.urls) || ix.NumTerms() != len(ref.terms) {
		t.Fatalf("index has %d documents and %d terms, want %d and %d", ix.NumDocs(), ix.NumTerms(), len(ref.urls), len(ref.terms))
	}
	m := ix.Meta()
	if m.Tokens != ref.tokens || m.Postings != ref.postings {
		t.Errorf("meta: %d tokens, %d postings; want %d, %d", m.Tokens, m.Postings, ref.tokens, ref.postings)
	}
	for d, u := range ref.urls {
		if got := ix.URL(uint32(d)); got != u {
			t.Fatalf("URL(%d) = %q, want %q", d, got, u)
		}
		if got := ix.DocLen(uint32(d)); got != ref.lens[d] {
			t.Errorf("DocLen(%d) (%s) = %d, want %d", d, u, got, ref.lens[d])
		}
	}
	for i, term := range ref.terms {
		info := ix.Term(i)
		want := ref.lists[term]
		var cf uint64
		for _, p := range want {
			cf += uint64(p.tf)
		}
		if info.Term != term || info.DF != uint32(len(want)) || info.CF != cf {
			t.Fatalf("Term(%d) = %q (df %d, cf %d), want %q (df %d, cf %d)", i, info.Term, info.DF, info.CF, term, len(want), cf)
		}
		c := ix.Cursor(info)
		for j, p := range want {
			if c.DocID() != p.doc || c.Freq() != p.tf {
				t.Fatalf("term %q posting %d: (docid, tf) = (%d, %d), want (%d, %d)", term, j, c.DocID(), c.Freq(), p.doc, p.tf)
			}
			c.Next()
		}
		if c.DocID() != index.NoMoreDocs || c.Err() != nil {
			t.Fatalf("term %q: %d postings, then DocID %d, Err %v; want NoMoreDocs, nil", term, len(want), c.DocID(), c.Err())
		}
	}
}

// urlsOf lists the index's URLs by docid.
func urlsOf(ix *index.Index) []string {
	urls := make([]string, ix.NumDocs())
	for d := range urls {
		urls[d] = ix.URL(uint32(d))
	}
	return urls
}

func TestBuildMatchesReference(t *testing.T) {
	c := genCorpus(1, 400)
	crawl := t.TempDir()
	c.write(t, crawl)
	ref := invert(c.sortedURLs(), c.textByURL())
	for _, codec := range testCodecs() {
		t.Run(codec, func(t *testing.T) {
			ix, rep, out := build(t, crawl, indexer.Options{DocIDCodec: codec, FreqCodec: codec, Workers: 3})
			compare(t, ix, ref)
			var input int64
			for _, b := range c.files {
				input += int64(len(b))
			}
			if rep.Documents != len(ref.urls) || rep.Terms != len(ref.terms) || rep.Postings != ref.postings || rep.InputBytes != input {
				t.Errorf("Report = %+v, want %d documents, %d terms, %d postings, %d input bytes", rep, len(ref.urls), len(ref.terms), ref.postings, input)
			}
			if rep.Unsupported.Count+rep.Unreadable.Count+rep.Oversize.Count+rep.UnsafeSymlinks.Count != 0 {
				t.Errorf("Report lists problems in a clean crawl: %+v", rep)
			}
			m := ix.Meta()
			if m.DocIDCodec != codec || m.FreqCodec != codec || m.Order != "url" {
				t.Errorf("meta: codecs %s/%s, order %q; want %s and url", m.DocIDCodec, m.FreqCodec, m.Order, codec)
			}
			a := analysis.New()
			for _, w := range hiddenWords {
				term := a.Terms(w)[0]
				if info, ok := ix.Lookup(term); ok {
					t.Errorf("hidden word %q is indexed (df %d)", w, info.DF)
				}
			}
			entries, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if want := []string{".lock", m.Generation, "meta.json"}; !slices.Equal(names, want) {
				t.Errorf("output directory holds %v, want %v only (scratch left behind?)", names, want)
			}
			// meta.json, the five data files, the store's titles and texts,
			// and the sources.
			if files := indexFiles(t, out); len(files) != 9 {
				t.Errorf("the index has %d files, want 9", len(files))
			}
		})
	}
}

// indexFiles reads every file of the index in dir: meta.json and the
// files of the generation it names.
func indexFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m, err := index.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(dir, m.Generation)
	entries, err := os.ReadDir(gen)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(gen, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	if files["meta.json"], err = os.ReadFile(filepath.Join(dir, "meta.json")); err != nil {
		t.Fatal(err)
	}
	return files
}

func TestBuildDeterministic(t *testing.T) {
	c := genCorpus(2, 300)
	crawl := t.TempDir()
	c.write(t, crawl)
	base := indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Workers: 1, MemoryBudget: 1 << 30}
	_, baseRep, baseDir := build(t, crawl, base)
	if baseRep.Runs != 0 {
		t.Errorf("with a 1 GiB budget Report.Runs = %d, want 0", baseRep.Runs)
	}
	want := indexFiles(t, baseDir)
	wantMeta, err := index.ReadMeta(baseDir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		opts     indexer.Options
		manyRuns bool
	}{
		{"4 workers", indexer.Options{Workers: 4}, false},
		{"16 workers", indexer.Options{Workers: 16}, false},
		{"4 KiB budget, 1 worker", indexer.Options{Workers: 1, MemoryBudget: 4 << 10}, true},
		{"4 KiB budget, 4 workers", indexer.Options{Workers: 4, MemoryBudget: 4 << 10}, true},
		{"64 KiB budget, scratch elsewhere", indexer.Options{Workers: 2, MemoryBudget: 64 << 10, TempDir: t.TempDir()}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.DocIDCodec, opts.FreqCodec = base.DocIDCodec, base.FreqCodec
			if opts.MemoryBudget == 0 {
				opts.MemoryBudget = base.MemoryBudget
			}
			_, rep, dir := build(t, crawl, opts)
			if tt.manyRuns && rep.Runs < 2 {
				t.Errorf("Report.Runs = %d, want several", rep.Runs)
			}
			if rep.Documents != baseRep.Documents || rep.Terms != baseRep.Terms || rep.Postings != baseRep.Postings {
				t.Errorf("Report = %+v, want the counts of %+v", rep, baseRep)
			}
			got := indexFiles(t, dir)
			if len(got) != len(want) {
				t.Errorf("%d files, want %d", len(got), len(want))
			}
			for name, b := range want {
				if name == "meta.json" {
					continue
				}
				if !bytes.Equal(got[name], b) {
					t.Errorf("%s differs (%d bytes, want %d)", name, len(got[name]), len(b))
				}
			}
			m, err := index.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			for name, fm := range wantMeta.Files {
				if m.Files[name] != fm {
					t.Errorf("meta.json: %s is %+v, want %+v", name, m.Files[name], fm)
				}
			}
			if !bytes.Equal(got["meta.json"], want["meta.json"]) {
				t.Errorf("meta.json differs:\n%s\nwant:\n%s", got["meta.json"], want["meta.json"])
			}
		})
	}
}

// walkOrder lists the crawl's document paths as a lexical depth-first walk
// meets them, skipping hidden names: the order "crawl" promises.
func walkOrder(t *testing.T, root, rel string, docs map[string]string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		p := e.Name()
		if rel != "" {
			p = rel + "/" + p
		}
		if e.IsDir() {
			out = append(out, walkOrder(t, root, p, docs)...)
		} else if _, ok := docs[p]; ok {
			out = append(out, p)
		}
	}
	return out
}

func TestDocIDOrder(t *testing.T) {
	c := genCorpus(3, 250)
	// Names where walk order and URL order disagree: a walk enters the
	// directory "a" before it meets "a-b.txt" and "a.txt".
	for _, rel := range []string{"example.com/a-b.txt", "example.com/a.txt", "example.com/a/z.txt", "example.com/a0.txt"} {
		c.files[rel] = []byte("order test " + rel)
		c.text[rel] = "order test " + rel
	}
	crawl := t.TempDir()
	c.write(t, crawl)
	text := c.textByURL()
	opts := func(order string, seed uint64) indexer.Options {
		return indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Order: order, Seed: seed, Workers: 2}
	}

	t.Run("url", func(t *testing.T) {
		ix, _, _ := build(t, crawl, opts("", 0)) // the default
		urls := urlsOf(ix)
		for i := 1; i < len(urls); i++ {
			if urls[i-1] >= urls[i] {
				t.Fatalf("URL(%d) = %q is not below URL(%d) = %q", i-1, urls[i-1], i, urls[i])
			}
		}
		if ix.Meta().Order != "url" {
			t.Errorf("meta order = %q, want url", ix.Meta().Order)
		}
		compare(t, ix, invert(urls, text))
	})

	t.Run("crawl", func(t *testing.T) {
		ix, _, _ := build(t, crawl, opts("crawl", 0))
		var want []string
		for _, rel := range walkOrder(t, crawl, "", c.text) {
			want = append(want, urlFor(rel))
		}
		urls := urlsOf(ix)
		if !slices.Equal(urls, want) {
			t.Errorf("crawl order URLs = %v..., want walk order %v...", urls[:min(8, len(urls))], want[:min(8, len(want))])
		}
		if slices.IsSorted(urls) {
			t.Errorf("crawl order is URL order; the test corpus should tell them apart")
		}
		compare(t, ix, invert(urls, text))
	})

	t.Run("random", func(t *testing.T) {
		ix1, _, _ := build(t, crawl, opts("random", 1))
		ix1b, _, _ := build(t, crawl, opts("random", 1))
		ix2, _, _ := build(t, crawl, opts("random", 2))
		u1, u1b, u2 := urlsOf(ix1), urlsOf(ix1b), urlsOf(ix2)
		if !slices.Equal(u1, u1b) {
			t.Errorf("seed 1 gave two different orders")
		}
		if slices.Equal(u1, u2) {
			t.Errorf("seeds 1 and 2 gave the same order")
		}
		if slices.IsSorted(u1) {
			t.Errorf("random order is URL order")
		}
		sorted := slices.Clone(u1)
		sort.Strings(sorted)
		if !slices.Equal(sorted, c.sortedURLs()) {
			t.Errorf("random order is not a permutation of the documents")
		}
		if ix1.Meta().Order != "random" {
			t.Errorf("meta order = %q, want random", ix1.Meta().Order)
		}
		compare(t, ix1, invert(u1, text))
	})
}

func TestBuildRejectsOptions(t *testing.T) {
	crawl := t.TempDir()
	os.WriteFile(filepath.Join(crawl, "a.txt"), []byte("hello"), 0o644)
	notDir := filepath.Join(crawl, "a.txt")
	tests := []struct {
		name  string
		crawl string
		opts  indexer.Options
		want  string
	}{
		{"unknown order", crawl, indexer.Options{Order: "alphabetical", DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}, "alphabetical"},
		{"unknown oversize policy", crawl, indexer.Options{Oversize: "drop", DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}, "drop"},
		{"unknown codec", crawl, indexer.Options{DocIDCodec: "nosuch", FreqCodec: "varint-SU"}, "varint-SU"},
		{"missing crawl directory", filepath.Join(crawl, "nope"), indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}, "nope"},
		{"crawl is a file", notDir, indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}, "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := indexer.Build(context.Background(), tt.crawl, filepath.Join(t.TempDir(), "idx"), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Build() error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestBuildCancelled(t *testing.T) {
	c := genCorpus(4, 200)
	crawl := t.TempDir()
	c.write(t, crawl)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "idx")
	if _, err := indexer.Build(ctx, crawl, out, indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}); err != context.Canceled {
		t.Errorf("Build with a cancelled context = %v, want context.Canceled", err)
	}
	if _, err := index.Open(out); err == nil {
		t.Errorf("a cancelled build left an index that opens")
	}
}

// TestBuildKeepsTheOldIndex checks that a build that fails, is cancelled
// or would replace the index with one of fewer than half its documents
// leaves the old index as it was, and that Force replaces it.
func TestBuildKeepsTheOldIndex(t *testing.T) {
	c := genCorpus(5, 120)
	crawl, empty := t.TempDir(), t.TempDir()
	c.write(t, crawl)
	opts := indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", MemoryBudget: 4 << 10}
	out := filepath.Join(t.TempDir(), "idx")
	if _, err := indexer.Build(context.Background(), crawl, out, opts); err != nil {
		t.Fatal(err)
	}
	want := indexFiles(t, out)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		crawl   string
		wantErr error
	}{
		{"empty crawl", context.Background(), empty, index.ErrShrink},
		{"cancelled", cancelled, crawl, context.Canceled},
		{"unknown codec", context.Background(), crawl, codecplugins.ErrUnknownCodec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := opts
			if tt.wantErr == codecplugins.ErrUnknownCodec {
				o.DocIDCodec = "nosuch"
			}
			if _, err := indexer.Build(tt.ctx, tt.crawl, out, o); !errors.Is(err, tt.wantErr) {
				t.Fatalf("Build = %v, want %v", err, tt.wantErr)
			}
			got := indexFiles(t, out)
			for name, b := range want {
				if !bytes.Equal(got[name], b) {
					t.Errorf("%s changed", name)
				}
			}
			entries, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 3 {
				t.Errorf("%d entries in the output directory, want 3 (scratch or a generation left behind?)", len(entries))
			}
		})
	}
	opts.Force = true
	if rep, err := indexer.Build(context.Background(), empty, out, opts); err != nil || rep.Documents != 0 {
		t.Fatalf("forced Build from an empty crawl = %+v, %v; want 0 documents", rep, err)
	}
}
