package index_test

import (
	"bytes"
	"context"
	"fmt"
	"hash/crc64"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/testindex"
)

// mergeDoc is a document of the merge tests: its URL and its tokens.
type mergeDoc struct {
	url    string
	tokens []string
}

// randomDocs makes n documents of random lengths over a small
// vocabulary, a few long enough for their stored text to be cut into
// pieces, in URL order.
func randomDocs(r *rand.Rand, n int) []mergeDoc {
	docs := make([]mergeDoc, n)
	for d := range docs {
		l := r.IntN(40)
		if r.IntN(8) == 0 {
			l = 200 + r.IntN(800) // several 1 KiB pieces
		}
		toks := make([]string, l)
		for i := range toks {
			toks[i] = fmt.Sprintf("w%d", int(r.ExpFloat64()*20)%300)
		}
		docs[d] = mergeDoc{url: fmt.Sprintf("http://example.com/%05d.html", d*7+r.IntN(7)), tokens: toks}
	}
	return docs
}

// writeDocs writes docs (in URL order) as an index in dir with a store
// of mode store, positions if o says so, and one source per document.
func writeDocs(t *testing.T, dir string, o index.WriterOptions, store string, docs []mergeDoc) {
	t.Helper()
	lens, urls := make([]uint32, len(docs)), make([]string, len(docs))
	type list struct{ docids, freqs, pos []uint32 }
	lists := map[string]*list{}
	srcs := make([]index.Source, len(docs))
	for d, doc := range docs {
		lens[d], urls[d] = uint32(len(doc.tokens)), doc.url
		h := crc64.Checksum([]byte(doc.url), crc64.MakeTable(crc64.ISO)) // an identity of the document's own
		srcs[d] = index.Source{URL: doc.url, Size: int64(len(doc.tokens)), MTime: -int64(h >> 2), Hash: h, Docs: 1}
		at := map[string][]uint32{}
		var order []string
		for p, tok := range doc.tokens {
			if at[tok] == nil {
				order = append(order, tok)
			}
			at[tok] = append(at[tok], uint32(p))
		}
		for _, tok := range order {
			l := lists[tok]
			if l == nil {
				l = &list{}
				lists[tok] = l
			}
			l.docids, l.freqs, l.pos = append(l.docids, uint32(d)), append(l.freqs, uint32(len(at[tok]))), append(l.pos, at[tok]...)
		}
	}
	w, err := index.NewWriter(dir, o, lens, urls)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if store != index.StoreNone {
		sb, err := index.NewStoreBuilder(t.TempDir(), store)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range docs {
			var text strings.Builder
			var toks []index.StoredToken
			for _, tok := range doc.tokens {
				text.WriteString(" ")
				toks = append(toks, index.StoredToken{Start: uint32(text.Len()), End: uint32(text.Len() + len(tok)), Term: tok})
				text.WriteString(tok)
			}
			if err := sb.Add("title of "+doc.url, []byte(text.String()), toks); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.AddStore(sb); err != nil {
			t.Fatal(err)
		}
	}
	for _, term := range slices.Sorted(func(yield func(string) bool) {
		for k := range lists {
			if !yield(k) {
				return
			}
		}
	}) {
		l := lists[term]
		if o.Positions {
			err = w.AddTermPositions(term, l.docids, l.freqs, l.pos)
		} else {
			err = w.AddTerm(term, l.docids, l.freqs)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AddSources(index.SourceOptions{Oversize: "truncate", MaxDocBytes: 1 << 20}, srcs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// genFiles reads the data files of the index in dir, by name.
func genFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m, err := index.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for name := range m.Files {
		if out[name], err = os.ReadFile(filepath.Join(dir, m.Generation, name)); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// sameFiles reports how two indexes' data files differ: byte for byte,
// but for the stored texts, which must read the same (their lexicons'
// ranks break ties by the order words were first met).
func sameFiles(t *testing.T, got, want string) error {
	t.Helper()
	g, w := genFiles(t, got), genFiles(t, want)
	if err := testindex.SameTexts(got, want); err != nil {
		return err
	}
	for name, b := range w {
		if name == "textwords.bin" {
			continue
		}
		if !bytes.Equal(g[name], b) {
			return fmt.Errorf("%s differs (%d bytes, want %d)", name, len(g[name]), len(b))
		}
	}
	if len(g) != len(w) {
		return fmt.Errorf("files %d, want %d", len(g), len(w))
	}
	return nil
}

// TestMergeEqualsDirectWrite merges random corpora split over 1 to 3
// inputs, each document of an input kept or dropped: the merged index's
// data files equal, byte for byte, those of an index written directly
// from the kept documents.
func TestMergeEqualsDirectWrite(t *testing.T) {
	for _, tt := range []struct {
		codec, store string
		positions    bool
	}{
		{"varint-SU", index.StoreNone, false},
		{"newpfor", index.StoreTitles, true},
		{"bp128", index.StoreText, true},
		{"newpfor", index.StoreText, false},
	} {
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("%s-%s-positions=%v-%d", tt.codec, tt.store, tt.positions, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 42))
				o := index.WriterOptions{DocIDCodec: tt.codec, FreqCodec: tt.codec, Order: "url", Positions: tt.positions, Force: true}
				docs := randomDocs(r, 50+r.IntN(300))
				nIn := 1 + int(seed)
				parts := make([][]mergeDoc, nIn)
				var kept []mergeDoc
				keptOf := map[string]bool{}
				for _, d := range docs {
					i := r.IntN(nIn)
					parts[i] = append(parts[i], d)
					if r.IntN(5) > 0 {
						kept = append(kept, d)
						keptOf[d.url] = true
					}
				}
				newID := map[string]uint32{}
				for i, d := range kept {
					newID[d.url] = uint32(i)
				}
				var inputs []index.MergeInput
				for _, p := range parts {
					dir := t.TempDir()
					writeDocs(t, dir, o, tt.store, p)
					ix, err := index.Open(dir)
					if err != nil {
						t.Fatal(err)
					}
					defer ix.Close()
					m := make([]uint32, len(p))
					for d, doc := range p {
						m[d] = index.Dropped
						if keptOf[doc.url] {
							m[d] = newID[doc.url]
						}
					}
					inputs = append(inputs, index.MergeInput{Index: ix, DocMap: m})
				}
				want := t.TempDir()
				writeDocs(t, want, o, tt.store, kept)
				got := t.TempDir()
				d, err := index.LockDir(got)
				if err != nil {
					t.Fatal(err)
				}
				defer d.Unlock()
				if err := index.Merge(context.Background(), d, o, inputs); err != nil {
					t.Fatal(err)
				}
				if err := sameFiles(t, got, want); err != nil {
					t.Errorf("%d documents over %d inputs, %d kept: %v", len(docs), nIn, len(kept), err)
				}
			})
		}
	}
}

// TestMergeRefuses checks the maps and inputs Merge refuses, leaving the
// output directory's index as it was.
func TestMergeRefuses(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	o := index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Order: "url"}
	docs := randomDocs(r, 4)
	open := func(positions bool, store string, titleWeight uint32) *index.Index {
		dir := t.TempDir()
		o := o
		o.Positions, o.TitleWeight = positions, titleWeight
		writeDocs(t, dir, o, store, docs)
		ix, err := index.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}
	plain, titles, weighted := open(false, index.StoreNone, 0), open(false, index.StoreTitles, 0), open(false, index.StoreNone, 2)
	D := index.Dropped
	for _, tt := range []struct {
		name   string
		o      index.WriterOptions
		inputs []index.MergeInput
	}{
		{"a map of another length", o, []index.MergeInput{{Index: plain, DocMap: []uint32{0, 1, 2}}}},
		{"a docid twice", o, []index.MergeInput{{Index: plain, DocMap: []uint32{0, 1, 1, 2}}}},
		{"a gap in the docids", o, []index.MergeInput{{Index: plain, DocMap: []uint32{0, 1, 3, D}}}},
		{"inputs storing different things", o, []index.MergeInput{{Index: plain, DocMap: []uint32{0, 1, D, D}}, {Index: titles, DocMap: []uint32{D, D, 2, 3}}}},
		{"positions from an input without", index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Positions: true},
			[]index.MergeInput{{Index: plain, DocMap: []uint32{0, 1, 2, 3}}}},
		{"an input of another title weight", o, []index.MergeInput{{Index: plain, DocMap: []uint32{0, 1, D, D}}, {Index: weighted, DocMap: []uint32{D, D, 2, 3}}}},
		{"sources of the wrong documents", o, []index.MergeInput{{Index: plain, DocMap: []uint32{0, 1, 2, 3}, Sources: []index.Source{{URL: "a", Docs: 3}}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			d, err := index.LockDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Unlock()
			if err := index.Merge(context.Background(), d, tt.o, tt.inputs); err == nil {
				t.Error("Merge: no error")
			}
			if _, err := index.ReadMeta(dir); err == nil {
				t.Error("a refused merge committed an index")
			}
		})
	}
}
