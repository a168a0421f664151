package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// writeStored writes an index into dir whose documents have the given
// titles and texts, storing mode.
func writeStored(t testing.TB, dir, mode string, titles []string, texts [][]byte) {
	t.Helper()
	writeDocs(t, dir, len(titles), func(w *Writer) {
		if mode == StoreNone {
			return
		}
		b, err := NewStoreBuilder(t.TempDir(), mode)
		if err != nil {
			t.Fatal(err)
		}
		for d := range titles {
			if err := b.Add(titles[d], texts[d], wordTokens(texts[d])); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.AddStore(b); err != nil {
			t.Fatal(err)
		}
	})
}

// writeDocs writes an index into dir of n documents of length 1, all
// holding the term "t", whose store (or other optional files) store
// writes before the commit.
func writeDocs(t testing.TB, dir string, n int, store func(*Writer)) {
	t.Helper()
	lens, urls, all, freqs := make([]uint32, n), make([]string, n), make([]uint32, n), make([]uint32, n)
	for d := range n {
		lens[d], urls[d], all[d], freqs[d] = 1, fmt.Sprintf("http://example.com/%06d", d), uint32(d), 1
	}
	w, err := NewWriter(dir, WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Force: true}, lens, urls)
	if err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		if err := w.AddTerm("t", all, freqs); err != nil {
			t.Fatal(err)
		}
	}
	store(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// wordTokens returns the tokens of text as the store is given them if
// the analyzer's words were the runs of bytes other than ASCII space and
// newline of at most 255 bytes, their terms lower-cased.
func wordTokens(text []byte) []StoredToken {
	var toks []StoredToken
	for i := 0; i < len(text); {
		if isBlank(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && !isBlank(text[j]) {
			j++
		}
		if j-i <= maxSurface {
			toks = append(toks, StoredToken{Start: uint32(i), End: uint32(j), Term: strings.ToLower(string(text[i:j]))})
		}
		i = j
	}
	return toks
}

func isBlank(c byte) bool { return c == ' ' || c == '\n' }

// randomDocs makes n titles and texts of random sizes, from empty to
// several blocks, of ASCII and other scripts.
func randomDocs(r *rand.Rand, n int) ([]string, [][]byte) {
	alphabet := []rune("abc xyz\n\u00e9\u00df\u4e2d\u6587\u0416\U0001F600")
	text := func(max int) []byte {
		var b strings.Builder
		for range r.IntN(max + 1) {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		return []byte(b.String())
	}
	titles, texts := make([]string, n), make([][]byte, n)
	for d := range n {
		titles[d] = string(text(60))
		switch r.IntN(10) {
		case 0:
			texts[d] = nil
		case 1:
			texts[d] = text(100 << 10) // several blocks' worth
		default:
			texts[d] = text(3000)
		}
	}
	return titles, texts
}

// TestStoreRoundTrip checks that every document reads back, in any order,
// what was stored of it, for each store mode and collection size.
func TestStoreRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 500} {
		titles, texts := randomDocs(r, n)
		for _, mode := range []string{StoreNone, StoreTitles, StoreText} {
			t.Run(fmt.Sprintf("%s/%d", mode, n), func(t *testing.T) {
				dir := t.TempDir()
				writeStored(t, dir, mode, titles, texts)
				ix, err := Open(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer ix.Close()
				if got := ix.Store(); got != mode {
					t.Errorf("Store() = %q, want %q", got, mode)
				}
				for _, d := range r.Perm(n) {
					for _, withText := range []bool{false, true} {
						got, err := ix.Document(uint32(d), withText)
						if err != nil {
							t.Fatalf("Document(%d, %v): %v", d, withText, err)
						}
						want := Document{URL: ix.URL(uint32(d))}
						if mode != StoreNone {
							want.Title = titles[d]
						}
						if mode == StoreText && withText {
							want.Text = string(texts[d])
						}
						if got != want {
							t.Fatalf("Document(%d, %v) = %.80q, want %.80q", d, withText, got, want)
						}
					}
					if mode == StoreText {
						checkWindows(t, ix, uint32(d), texts[d], r)
					}
				}
				if _, err := ix.Document(uint32(n), false); err == nil {
					t.Errorf("Document(%d) of %d documents: no error", n, n)
				}
				// Convert keeps the store.
				out := t.TempDir()
				if err := Convert(context.Background(), ix, out, WriterOptions{DocIDCodec: "varint-G8IU", FreqCodec: "varint-G8IU"}); err != nil {
					t.Fatal(err)
				}
				cv, err := Open(out)
				if err != nil {
					t.Fatal(err)
				}
				defer cv.Close()
				if cv.Store() != mode {
					t.Errorf("converted index stores %q, want %q", cv.Store(), mode)
				}
				if n > 0 {
					a, _ := ix.Document(uint32(n-1), true)
					b, err := cv.Document(uint32(n-1), true)
					if err != nil || a != b {
						t.Errorf("converted Document = %.40q, %v; want %.40q", b, err, a)
					}
				}
			})
		}
	}
}

// checkWindows checks that TextWindow gives, for random token ranges of
// document d, whole tokens and gaps of text from at least a context
// before the first token asked to a context after the last, its tokens
// marked with the terms asked.
func checkWindows(t *testing.T, ix *Index, d uint32, text []byte, r *rand.Rand) {
	t.Helper()
	toks := wordTokens(text)
	var terms []string
	for range 3 {
		if len(toks) > 0 {
			terms = append(terms, toks[r.IntN(len(toks))].Term)
		}
	}
	terms = append(terms, "absent")
	tt, err := ix.TextTerms(terms)
	if err != nil {
		t.Fatal(err)
	}
	var w TextWindow
	for range 5 {
		from := uint32(r.IntN(len(toks) + 3))
		to := from + uint32(r.IntN(100))
		before, after := r.IntN(300), r.IntN(300)
		if err := ix.TextWindow(d, from, to, before, after, tt, &w); err != nil {
			t.Fatalf("TextWindow(%d, %d, %d): %v", d, from, to, err)
		}
		if len(toks) == 0 {
			if string(w.Text) != string(text) || len(w.Tokens) != 0 || !w.AtStart || !w.AtEnd {
				t.Fatalf("TextWindow(%d) of a text without tokens = %.40q %d tokens", d, w.Text, len(w.Tokens))
			}
			continue
		}
		f, l := int(w.First), int(w.First)+len(w.Tokens)-1
		if l >= len(toks) || w.AtStart != (f == 0) || w.AtEnd != (l == len(toks)-1) {
			t.Fatalf("TextWindow(%d, %d, %d) = tokens %d-%d of %d, at start %v, at end %v", d, from, to, f, l, len(toks), w.AtStart, w.AtEnd)
		}
		start, end := int(toks[f].Start), len(text)
		if f == 0 {
			start = 0
		}
		if l+1 < len(toks) {
			end = int(toks[l+1].Start)
		}
		if string(w.Text) != string(text[start:end]) {
			t.Fatalf("TextWindow(%d, %d, %d) text %.60q, want %.60q", d, from, to, w.Text, text[start:end])
		}
		for i, wt := range w.Tokens {
			k := toks[f+i]
			want := int32(slices.Index(terms, k.Term))
			if int(wt.Start)+start != int(k.Start) || int(wt.End)+start != int(k.End) || wt.Term != want {
				t.Fatalf("TextWindow(%d) token %d = %+v, want %+v term %d", d, f+i, wt, k, want)
			}
		}
		fr, lt := min(int(from), len(toks)-1), min(max(int(to), int(from)), len(toks)-1)
		if f > fr || l < lt || f > 0 && int(toks[fr].Start)-start < before ||
			!w.AtEnd && end-int(toks[fr].Start) < after {
			t.Fatalf("TextWindow(%d, %d, %d, %d, %d) = tokens %d-%d: too little around", d, from, to, before, after, f, l)
		}
	}
}

// TestStoreCorrupt checks that a flipped byte in a store file is refused
// at Open, and that blocks which pass the checksum but do not decode give
// errors, not panics.
func TestStoreCorrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	titles, texts := randomDocs(r, 200)
	dir := t.TempDir()
	writeStored(t, dir, StoreText, titles, texts)
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(dir, ix.meta.Generation)
	ix.Close()
	for _, name := range []string{fileTitles, fileTextWords} {
		p := filepath.Join(gen, name)
		orig, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		bad := bytes.Clone(orig)
		bad[len(bad)/2] ^= 0x10
		os.WriteFile(p, bad, 0o644)
		if _, err := Open(dir); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), name) {
			t.Errorf("Open with a flipped byte in %s = %v, want ErrCorrupt naming it", name, err)
		}
		os.WriteFile(p, orig, 0o644)
	}

	// Garbage behind a table that checks: every read is an error.
	data, _ := os.ReadFile(filepath.Join(gen, fileTitles))
	f, err := parseBlockFile(fileTitles, data, 200)
	if err != nil {
		t.Fatal(err)
	}
	garbage := slices.Clone(data)
	for i := range len(f.blocks) {
		garbage[i] = byte(r.Uint32())
	}
	g, err := parseBlockFile(fileTitles, garbage, 200)
	if err != nil {
		t.Fatal(err)
	}
	for d := range uint32(200) {
		if _, err := g.record(d); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("record(%d) of a garbage block = %v, want ErrCorrupt", d, err)
		}
	}

	tests := []struct {
		name string
		edit func([]byte) []byte
	}{
		{"no magic", func(b []byte) []byte { return b[:len(b)-1] }},
		{"empty", func([]byte) []byte { return nil }},
		{"documents", func(b []byte) []byte { b[len(b)-12]++; return b }},
		{"blocks", func(b []byte) []byte { b[len(b)-16] += 100; return b }},
		{"first offset", func(b []byte) []byte { b[len(b)-storeTrailer-f.n*storeRowBytes]++; return b }},
		{"decoded size", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(b)-storeTrailer-4:], maxBlockBytes+1)
			return b
		}},
	}
	for _, tc := range tests {
		if _, err := parseBlockFile(fileTitles, tc.edit(slices.Clone(data)), 200); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: parseBlockFile = %v, want ErrCorrupt", tc.name, err)
		}
	}
}

// FuzzBlockFile checks that the block file decoder never panics and that
// whatever it accepts reads without panicking either.
func FuzzBlockFile(f *testing.F) {
	dir := f.TempDir()
	titles, texts := randomDocs(rand.New(rand.NewPCG(5, 6)), 20)
	b, err := NewStoreBuilder(dir, StoreText)
	if err != nil {
		f.Fatal(err)
	}
	for d := range titles {
		b.Add(titles[d], texts[d], nil)
	}
	var buf bytes.Buffer
	if err := b.titles.finish(&buf); err != nil {
		f.Fatal(err)
	}
	b.Close()
	f.Add(buf.Bytes(), uint16(20))
	f.Add([]byte(storeMagic), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, docs uint16) {
		bf, err := parseBlockFile(fileTitles, data, uint64(docs))
		if err != nil {
			return
		}
		for d := range min(uint32(docs), 64) {
			bf.record(d)
		}
	})
}

// BenchmarkDocument measures Document's latency for random docids of a
// stored collection, with and without text; p50 and p99 are reported.
func BenchmarkDocument(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 20000
	titles, texts := make([]string, n), make([][]byte, n)
	words := strings.Fields("the quick brown fox jumps over lazy dog search engine index posting block query result title snippet")
	for d := range n {
		var t []string
		for range 8 + r.IntN(2000) {
			t = append(t, words[r.IntN(len(words))])
		}
		titles[d], texts[d] = strings.Join(t[:6], " "), []byte(strings.Join(t, " "))
	}
	dir := b.TempDir()
	writeStored(b, dir, StoreText, titles, texts)
	ix, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	for _, withText := range []bool{false, true} {
		b.Run(fmt.Sprintf("text=%v", withText), func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for b.Loop() {
				start := time.Now()
				if _, err := ix.Document(uint32(r.IntN(n)), withText); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}
