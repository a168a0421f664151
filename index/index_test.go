package index_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/index/bm25"
)

// testCodecs are the codecs the index tests run with: varint-SU always, and
// bp128 once codecplugins/all registers it.
func testCodecs() []string {
	codecs := []string{"varint-SU"}
	if slices.Contains(codecplugins.Names(), "bp128") {
		codecs = append(codecs, "bp128")
	}
	return codecs
}

// list is one term's posting list as the tests generate it.
type list struct {
	term  string
	docs  []uint32
	freqs []uint32
}

// collection is an in-memory index: what the tests write and expect back.
type collection struct {
	docLens []uint32
	urls    []string
	lists   []list // sorted by term
}

// randomList draws n distinct sorted docids below nDocs and their
// frequencies, mostly small with an occasional large one.
func randomList(r *rand.Rand, term string, n, nDocs int) list {
	docs := make([]uint32, 0, n)
	if n*2 > nDocs {
		// Dense: pick which docids to leave out.
		perm := r.Perm(nDocs)[:n]
		for _, d := range perm {
			docs = append(docs, uint32(d))
		}
	} else {
		seen := map[uint32]bool{}
		for len(docs) < n {
			d := uint32(r.IntN(nDocs))
			if !seen[d] {
				seen[d] = true
				docs = append(docs, d)
			}
		}
	}
	slices.Sort(docs)
	freqs := make([]uint32, n)
	for i := range freqs {
		switch r.IntN(50) {
		case 0:
			freqs[i] = 1 + uint32(r.IntN(1<<20))
		default:
			freqs[i] = 1 + uint32(r.IntN(4))
		}
	}
	return list{term, docs, freqs}
}

// randomCollection makes nDocs documents and one list per length.
func randomCollection(r *rand.Rand, nDocs int, lengths []int) collection {
	c := collection{docLens: make([]uint32, nDocs), urls: make([]string, nDocs)}
	for i := range nDocs {
		c.docLens[i] = uint32(r.IntN(500))
		c.urls[i] = fmt.Sprintf("http://host%d.test/page/%d.html", r.IntN(7), i)
	}
	c.docLens[0] = 0 // an empty document
	for i, n := range lengths {
		c.lists = append(c.lists, randomList(r, fmt.Sprintf("t%03d-len%d", i, n), n, nDocs))
	}
	return c
}

// write lays c out as an index in dir with codec.
func (c collection) write(t testing.TB, dir, codec string) {
	t.Helper()
	w, err := index.NewWriter(dir, index.WriterOptions{DocIDCodec: codec, FreqCodec: codec, Order: "url"}, c.docLens, c.urls)
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	for _, l := range c.lists {
		if err := w.AddTerm(l.term, l.docs, l.freqs); err != nil {
			t.Fatalf("AddTerm(%q): %v", l.term, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func openIndex(t testing.TB, dir string) *index.Index {
	t.Helper()
	return openIndexWith(t, dir, index.Mapped)
}

// openIndexWith is openIndex keeping the index as mem says.
func openIndexWith(t testing.TB, dir string, mem index.Memory) *index.Index {
	t.Helper()
	ix, err := index.OpenWith(dir, mem)
	if err != nil {
		t.Fatalf("OpenWith(%s, %s): %v", dir, mem, err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// avgLen is the average document length as the index defines it.
func (c collection) avgLen() float32 {
	var sum uint64
	for _, l := range c.docLens {
		sum += uint64(l)
	}
	if sum == 0 {
		return 1
	}
	return float32(float64(sum) / float64(len(c.docLens)))
}

func TestWriteOpenRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lengths := []int{1, 2, 127, 128, 129, 255, 256, 257, 1000, 2999, 3000}
	c := randomCollection(r, 3000, lengths)
	// Lexicons of one segment, and of segments of 1 and 4 terms.
	for _, seg := range []uint64{0, 1, 4} {
		for _, codec := range testCodecs() {
			for _, mem := range []index.Memory{index.Mapped, index.HugePages} {
				t.Run(fmt.Sprintf("%s/segment-%d/%s", codec, seg, mem), func(t *testing.T) {
					if seg > 0 {
						defer index.SetSegmentTerms(seg)()
					}
					dir := t.TempDir()
					c.write(t, dir, codec)
					for _, d := range []struct {
						dir  string
						want []string
					}{
						{dir, []string{".lock", "gen-1", "meta.json"}},
						{filepath.Join(dir, "gen-1"), []string{"docids.bin", "doclens.bin", "freqs.bin", "lexicon.bin", "urls.bin"}},
					} {
						if names := dirNames(t, d.dir); !slices.Equal(names, d.want) {
							t.Errorf("%s holds %v, want %v (temporary files left behind?)", d.dir, names, d.want)
						}
					}
					ix := openIndexWith(t, dir, mem)
					m := ix.Meta()
					var postings uint64
					for _, l := range c.lists {
						postings += uint64(len(l.docs))
					}
					if m.Docs != 3000 || m.Terms != uint64(len(lengths)) || m.Postings != postings || m.DocIDCodec != codec || m.FreqCodec != codec || m.Order != "url" {
						t.Errorf("Meta() = %+v, want 3000 docs, %d terms, %d postings, codec %s, order url", m, len(lengths), postings, codec)
					}
					if m.BlockSize != ix.BlockSize() || m.K1 != 0.9 || m.B != 0.4 {
						t.Errorf("Meta() block size %d (BlockSize() %d), k1 %v, b %v; want k1 0.9, b 0.4", m.BlockSize, ix.BlockSize(), m.K1, m.B)
					}
					if got, want := ix.AvgDocLen(), c.avgLen(); got != want {
						t.Errorf("AvgDocLen() = %v, want %v", got, want)
					}
					params := bm25.DefaultParams()
					norms := ix.Norms()
					for d := range c.docLens {
						if got := ix.DocLen(uint32(d)); got != c.docLens[d] {
							t.Fatalf("DocLen(%d) = %d, want %d", d, got, c.docLens[d])
						}
						if got := ix.URL(uint32(d)); got != c.urls[d] {
							t.Fatalf("URL(%d) = %q, want %q", d, got, c.urls[d])
						}
						if want := params.Norm(c.docLens[d], c.avgLen()); norms[d] != want {
							t.Fatalf("Norms()[%d] = %v, want %v", d, norms[d], want)
						}
					}
					for i, l := range c.lists {
						info := ix.Term(i)
						got, ok := ix.Lookup(l.term)
						if !ok || got != info {
							t.Errorf("Lookup(%q) = %+v, %v; want %+v, true", l.term, got, ok, info)
						}
						var cf uint64
						for _, f := range l.freqs {
							cf += uint64(f)
						}
						if info.Term != l.term || info.DF != uint32(len(l.docs)) || info.CF != cf || info.ID != i {
							t.Errorf("Term(%d) = %+v, want term %q, df %d, cf %d", i, info, l.term, len(l.docs), cf)
						}
						cur := ix.Cursor(info)
						for j, d := range l.docs {
							if cur.DocID() != d || cur.Freq() != l.freqs[j] {
								t.Fatalf("term %q posting %d: (DocID, Freq) = (%d, %d), want (%d, %d)", l.term, j, cur.DocID(), cur.Freq(), d, l.freqs[j])
							}
							cur.Next()
						}
						if cur.DocID() != index.NoMoreDocs || cur.Err() != nil {
							t.Errorf("term %q: after the last posting DocID = %d, Err = %v; want NoMoreDocs, nil", l.term, cur.DocID(), cur.Err())
						}
					}
					for _, missing := range []string{"", "a", "t000", "t999", "zzz", c.lists[0].term + "x"} {
						if info, ok := ix.Lookup(missing); ok {
							t.Errorf("Lookup(%q) = %+v, true; want not found", missing, info)
						}
					}
				})
			}
		}
	}
}

func TestEmptyIndexes(t *testing.T) {
	tests := []struct {
		name    string
		docLens []uint32
		urls    []string
	}{
		{"no documents", nil, nil},
		{"only empty documents", []uint32{0, 0, 0}, []string{"a", "b", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			w, err := index.NewWriter(dir, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}, tt.docLens, tt.urls)
			if err != nil {
				t.Fatalf("NewWriter: %v", err)
			}
			if err := w.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			ix := openIndex(t, dir)
			if ix.NumDocs() != len(tt.docLens) || ix.NumTerms() != 0 {
				t.Errorf("NumDocs, NumTerms = %d, %d; want %d, 0", ix.NumDocs(), ix.NumTerms(), len(tt.docLens))
			}
			for d, u := range tt.urls {
				if got := ix.URL(uint32(d)); got != u {
					t.Errorf("URL(%d) = %q, want %q", d, got, u)
				}
			}
			if _, ok := ix.Lookup("anything"); ok {
				t.Errorf("Lookup in an empty index found a term")
			}
		})
	}
}

func TestWriterRejects(t *testing.T) {
	lens := []uint32{3, 4, 5}
	urls := []string{"a", "b", "c"}
	opts := index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}
	t.Run("NewWriter", func(t *testing.T) {
		tests := []struct {
			name string
			opts index.WriterOptions
			lens []uint32
			urls []string
			want string
		}{
			{"lengths and urls differ", opts, lens, urls[:2], "URLs"},
			{"unknown docid codec", index.WriterOptions{DocIDCodec: "nosuch", FreqCodec: "varint-SU"}, lens, urls, "nosuch"},
			{"unknown freq codec", index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "nosuch"}, lens, urls, "nosuch"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := index.NewWriter(t.TempDir(), tt.opts, tt.lens, tt.urls)
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("NewWriter() error = %v, want one mentioning %q", err, tt.want)
				}
			})
		}
	})
	t.Run("AddTerm", func(t *testing.T) {
		tests := []struct {
			name  string
			term  string
			docs  []uint32
			freqs []uint32
		}{
			{"term not after previous", "m", []uint32{0}, []uint32{1}},
			{"term before previous", "a", []uint32{0}, []uint32{1}},
			{"empty list", "x", nil, nil},
			{"lengths differ", "x", []uint32{0, 1}, []uint32{1}},
			{"docid out of range", "x", []uint32{0, 3}, []uint32{1, 1}},
			{"docids repeat", "x", []uint32{1, 1}, []uint32{1, 1}},
			{"docids decrease", "x", []uint32{2, 1}, []uint32{1, 1}},
			{"zero frequency", "x", []uint32{0, 1}, []uint32{1, 0}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				w, err := index.NewWriter(t.TempDir(), opts, lens, urls)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Abort()
				if err := w.AddTerm("m", []uint32{0, 2}, []uint32{1, 2}); err != nil {
					t.Fatalf("AddTerm(m): %v", err)
				}
				if err := w.AddTerm(tt.term, tt.docs, tt.freqs); err == nil {
					t.Errorf("AddTerm(%q, %v, %v) = nil, want an error", tt.term, tt.docs, tt.freqs)
				}
			})
		}
	})
	t.Run("after Close", func(t *testing.T) {
		w, err := index.NewWriter(t.TempDir(), opts, lens, urls)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.AddTerm("x", []uint32{0}, []uint32{1}); err == nil {
			t.Errorf("AddTerm after Close = nil, want an error")
		}
		if err := w.Close(); err == nil {
			t.Errorf("second Close = nil, want an error")
		}
	})
}

// dirNames lists a directory's entries.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestRewriteKeepsTheOldIndex checks that the index in a directory keeps
// opening, unchanged, while a writer writes its next generation and after
// the writer aborts, which leaves nothing behind; and that Close commits
// the new generation and removes the old.
func TestRewriteKeepsTheOldIndex(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	old := randomCollection(r, 200, []int{5, 50})
	c := randomCollection(r, 300, []int{5, 50})
	old.write(t, dir, "varint-SU")
	opts := index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}
	for _, commit := range []bool{false, true} {
		w, err := index.NewWriter(dir, opts, c.docLens, c.urls)
		if err != nil {
			t.Fatal(err)
		}
		if ix, err := index.Open(dir); err != nil || ix.NumDocs() != 200 {
			t.Fatalf("Open during a rewrite: %v", err)
		} else {
			ix.Close()
		}
		if !commit {
			w.Abort()
			if names := dirNames(t, dir); !slices.Equal(names, []string{".lock", "gen-1", "meta.json"}) {
				t.Errorf("after Abort the directory holds %v, want the old index alone", names)
			}
			if ix, err := index.Open(dir); err != nil || ix.NumDocs() != 200 {
				t.Fatalf("Open after Abort: %v", err)
			} else {
				ix.Close()
			}
			continue
		}
		for _, l := range c.lists {
			if err := w.AddTerm(l.term, l.docs, l.freqs); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if names := dirNames(t, dir); !slices.Equal(names, []string{".lock", "gen-2", "meta.json"}) {
			t.Errorf("after Close the directory holds %v, want the new generation alone", names)
		}
		if ix := openIndex(t, dir); ix.NumDocs() != 300 {
			t.Errorf("after Close: %d documents, want 300", ix.NumDocs())
		}
	}
}

// TestLeftoversRemoved checks that a writer removes what killed writers
// left, and nothing else of the directory's.
func TestLeftoversRemoved(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(5, 6))
	c := randomCollection(r, 200, []int{5, 50})
	c.write(t, dir, "varint-SU")
	for _, d := range []string{"gen-7", ".runs.tmp-9", ".runs-456"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".meta.json.tmp-123", "gen-7/docids.bin", ".runs-456/run-0"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, keep := range []string{"cost-model.json", "notes.txt", ".hidden"} {
		if err := os.WriteFile(filepath.Join(dir, keep), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := index.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	d.Unlock()
	want := []string{".hidden", ".lock", "cost-model.json", "gen-1", "meta.json", "notes.txt"}
	if names := dirNames(t, dir); !slices.Equal(names, want) {
		t.Errorf("after LockDir the directory holds %v, want %v", names, want)
	}
	openIndex(t, dir)
	// A version 2 index kept its data files beside meta.json: refused,
	// and replaced, files and all, by the next write.
	for name, data := range map[string]string{"meta.json": `{"version": 2}`, "docids.bin": "x", ".docids.bin.tmp-5": "x"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := index.Open(dir); !errors.Is(err, index.ErrVersion) || !strings.Contains(err.Error(), "rebuild") {
		t.Errorf("Open of a version 2 index = %v, want ErrVersion asking for a rebuild", err)
	}
	c.write(t, dir, "varint-SU")
	want = []string{".hidden", ".lock", "cost-model.json", "gen-2", "meta.json", "notes.txt"}
	if names := dirNames(t, dir); !slices.Equal(names, want) {
		t.Errorf("after rebuilding a version 2 index the directory holds %v, want %v", names, want)
	}
}

// TestRefuseShrink checks the writer's guard against replacing an index
// with an empty one or one of fewer than half its documents.
func TestRefuseShrink(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	old := randomCollection(r, 100, []int{5, 50})
	opts := index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}
	tests := []struct {
		docs    int
		force   bool
		refused bool
	}{
		{0, false, true},
		{49, false, true},
		{50, false, false},
		{200, false, false},
		{0, true, false},
		{1, true, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d docs, force %v", tt.docs, tt.force), func(t *testing.T) {
			dir := t.TempDir()
			old.write(t, dir, "varint-SU")
			o := opts
			o.Force = tt.force
			w, err := index.NewWriter(dir, o, make([]uint32, tt.docs), make([]string, tt.docs))
			if tt.refused {
				if !errors.Is(err, index.ErrShrink) {
					t.Fatalf("NewWriter = %v, want ErrShrink", err)
				}
				if ix := openIndex(t, dir); ix.NumDocs() != 100 {
					t.Errorf("the old index has %d documents, want 100", ix.NumDocs())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if ix := openIndex(t, dir); ix.NumDocs() != tt.docs {
				t.Errorf("the new index has %d documents, want %d", ix.NumDocs(), tt.docs)
			}
		})
	}
}

// TestMetaBytes checks Meta's size helpers against the files on disk.
func TestMetaBytes(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(5, 6))
	c := randomCollection(r, 500, []int{10, 100, 400})
	c.write(t, dir, "varint-SU")
	m, err := index.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for name, fm := range m.Files {
		st, err := os.Stat(filepath.Join(dir, m.Generation, name))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() != fm.Size {
			t.Errorf("meta.json says %s has %d bytes, it has %d", name, fm.Size, st.Size())
		}
		total += st.Size()
	}
	if m.Bytes() != total {
		t.Errorf("Bytes() = %d, want %d", m.Bytes(), total)
	}
	if want := float64(8*m.Files["docids.bin"].Size) / 510; m.BitsPerDocID() != want {
		t.Errorf("BitsPerDocID() = %v, want %v", m.BitsPerDocID(), want)
	}
}
