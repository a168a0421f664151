package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// storedWords writes 200 random documents with text and returns the
// index directory and its textwords.bin.
func storedWords(t testing.TB) (dir string, data []byte, texts [][]byte) {
	titles, texts := randomDocs(rand.New(rand.NewPCG(9, 10)), 200)
	dir = t.TempDir()
	writeStored(t, dir, StoreText, titles, texts)
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	data, err = os.ReadFile(filepath.Join(dir, ix.meta.Generation, fileTextWords))
	if err != nil {
		t.Fatal(err)
	}
	return dir, data, texts
}

// readAll reads every document of f every way, returning the first
// error.
func readAll(f *wordFile, docs uint32) error {
	var w TextWindow
	set, err := f.newRankSet([]string{"abc", "xyz"})
	if err != nil {
		return err
	}
	var first error
	for d := range docs {
		_, err := f.text(d)
		if err == nil {
			err = f.window(d, d, 3*d, 100, 50, set, &w)
		}
		if first == nil {
			first = err
		}
	}
	if _, err := f.surfaceTerms(); first == nil {
		first = err
	}
	return first
}

// TestTextWordsCorrupt checks that damaged tables are refused and that
// garbage codes behind tables that check give errors, not panics.
func TestTextWordsCorrupt(t *testing.T) {
	_, data, texts := storedWords(t)
	f, err := parseWordFile(data, 200)
	if err != nil {
		t.Fatal(err)
	}
	for d := range uint32(200) {
		if got, err := f.text(d); err != nil || got != string(texts[d]) {
			t.Fatalf("text(%d) = %.40q, %v; want %.40q", d, got, err, texts[d])
		}
	}
	tr := data[len(data)-wordsTrailer:]
	streamLen := binary.LittleEndian.Uint64(tr)
	lexLen := binary.LittleEndian.Uint64(tr[8:])
	garbage := slices.Clone(data)
	r := rand.New(rand.NewPCG(11, 12))
	for i := range int(streamLen) {
		garbage[i] = byte(r.Uint32())
	}
	g, err := parseWordFile(garbage, 200)
	if err != nil {
		t.Fatal(err)
	}
	if err := readAll(g, 200); !errors.Is(err, ErrCorrupt) {
		t.Errorf("reading garbage codes = %v, want ErrCorrupt", err)
	}

	field := func(at int, v uint64, wide bool) func([]byte) []byte {
		return func(b []byte) []byte {
			if wide {
				binary.LittleEndian.PutUint64(b[len(b)-wordsTrailer+at:], v)
			} else {
				binary.LittleEndian.PutUint32(b[len(b)-wordsTrailer+at:], uint32(v))
			}
			return b
		}
	}
	tests := []struct {
		name string
		edit func([]byte) []byte
	}{
		{"no magic", func(b []byte) []byte { return b[:len(b)-1] }},
		{"empty", func([]byte) []byte { return nil }},
		{"stream", field(0, streamLen+1, true)},
		{"huge section", field(8, 1<<62, true)},
		{"lexicons", field(8, lexLen-1, true)},
		{"surfaces' size", field(24, binary.LittleEndian.Uint64(tr[24:])+1, true)},
		{"huge lexicon", field(32, 1<<40, true)},
		{"surfaces", field(64, uint64(binary.LittleEndian.Uint32(tr[64:]))+1, false)},
		{"gaps", field(68, uint64(binary.LittleEndian.Uint32(tr[68:]))+1, false)},
		{"symbols", field(72, uint64(binary.LittleEndian.Uint32(tr[72:]))+1, false)},
		{"documents", field(80, 201, false)},
		{"no stoppers", field(84, 0, false)},
		{"truncated", func(b []byte) []byte { return append(b[:len(b)/2], b[len(b)-wordsTrailer:]...) }},
	}
	for _, tc := range tests {
		if _, err := parseWordFile(tc.edit(slices.Clone(data)), 200); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: parseWordFile = %v, want ErrCorrupt", tc.name, err)
		}
	}
	// A changed byte anywhere is refused or reads without panics (the
	// flips land in the tables mostly: the stream is the garbage above).
	for range 100 {
		b := slices.Clone(data)
		b[int(streamLen)+r.IntN(len(b)-wordsTrailer-int(streamLen))] ^= byte(1 + r.IntN(255))
		f, err := parseWordFile(b, 200)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("parseWordFile of a changed byte = %v, want ErrCorrupt", err)
			}
			continue
		}
		if err := readAll(f, 20); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("reading a changed byte = %v, want ErrCorrupt", err)
		}
	}
}

// FuzzWordFile checks that the word-coded text store's reader never
// panics on any bytes, whatever it accepts.
func FuzzWordFile(f *testing.F) {
	_, data, _ := storedWords(f)
	f.Add(data, uint16(200))
	f.Add([]byte(wordsMagic), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, docs uint16) {
		wf, err := parseWordFile(data, uint64(docs))
		if err != nil {
			return
		}
		readAll(wf, min(uint32(docs), 64))
	})
}

// TestPiecedTextRefused checks that an index whose text lies in zstd
// pieces, as builds before the word-coded store wrote it, is refused
// with ErrVersion and a word on what to do.
func TestPiecedTextRefused(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir, 3, func(w *Writer) {
		f, err := w.createOptional(fileTextPieces)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("gstexts3"))
	})
	if _, err := Open(dir); !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "rebuild") {
		t.Errorf("Open of an index with %s = %v, want ErrVersion asking for a rebuild", fileTextPieces, err)
	}
}

// TestFormat4Texts checks that an index whose texts lie whole in
// texts.bin, as format 4 wrote them, still reads, without spans.
func TestFormat4Texts(t *testing.T) {
	titles, texts := randomDocs(rand.New(rand.NewPCG(13, 14)), 50)
	dir := t.TempDir()
	writeDocs(t, dir, len(texts), func(w *Writer) {
		for _, p := range []struct {
			name string
			recs [][]byte
		}{{fileTitles, nil}, {fileTexts, texts}} {
			bw, err := newBlockWriter(t.TempDir(), p.name, 32<<10)
			if err != nil {
				t.Fatal(err)
			}
			for d := range texts {
				rec := []byte(titles[d])
				if p.recs != nil {
					rec = p.recs[d]
				}
				bw.add(rec)
			}
			f, err := w.createOptional(p.name)
			if err != nil {
				t.Fatal(err)
			}
			if err := bw.finish(f); err != nil {
				t.Fatal(err)
			}
			bw.close()
		}
	})
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.Store() != StoreText || ix.WordText() {
		t.Errorf("Store() = %q, WordText() = %v; want text, not word-coded", ix.Store(), ix.WordText())
	}
	for d := range texts {
		doc, err := ix.Document(uint32(d), true)
		if err != nil || doc.Title != titles[d] || !bytes.Equal([]byte(doc.Text), texts[d]) {
			t.Fatalf("Document(%d) = %.40q, %v", d, doc, err)
		}
	}
	if err := ix.TextWindow(0, 0, 1, 10, 10, &TextTerms{}, &TextWindow{}); err == nil {
		t.Error("TextWindow of whole texts: no error")
	}
}

// TestTitleCache checks titles read through a cache far smaller than the
// blocks, in random order: every read is the stored title.
func TestTitleCache(t *testing.T) {
	titles, texts := randomDocs(rand.New(rand.NewPCG(15, 16)), 600)
	dir := t.TempDir()
	writeStored(t, dir, StoreTitles, titles, texts)
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if ix.titles.n < 4 {
		t.Fatalf("%d title blocks: want several", ix.titles.n)
	}
	ix.titles.cache = ix.titles.cache[:1]
	r := rand.New(rand.NewPCG(17, 18))
	for range 2 {
		for _, d := range r.Perm(len(titles)) {
			doc, err := ix.Document(uint32(d), false)
			if err != nil || doc.Title != titles[d] {
				t.Fatalf("Document(%d) title %.40q, %v; want %.40q", d, doc.Title, err, titles[d])
			}
		}
	}
}

// TestAddFrom stores documents of one index into another, beside new
// ones: every text and window reads back as stored, its tokens with
// their terms.
func TestAddFrom(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	titles, texts := randomDocs(r, 60)
	src := t.TempDir()
	writeStored(t, src, StoreText, titles, texts)
	ix, err := Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	newTitles, newTexts := randomDocs(r, 20)
	// The merged documents: every other source document, then the new ones.
	var wantTitles []string
	var wantTexts [][]byte
	b, err := NewStoreBuilder(t.TempDir(), StoreText)
	if err != nil {
		t.Fatal(err)
	}
	for d := 0; d < len(texts); d += 2 {
		if err := b.AddFrom(titles[d], ix, uint32(d)); err != nil {
			t.Fatal(err)
		}
		wantTitles, wantTexts = append(wantTitles, titles[d]), append(wantTexts, texts[d])
	}
	for d := range newTexts {
		if err := b.Add(newTitles[d], newTexts[d], wordTokens(newTexts[d])); err != nil {
			t.Fatal(err)
		}
		wantTitles, wantTexts = append(wantTitles, newTitles[d]), append(wantTexts, newTexts[d])
	}
	dst := t.TempDir()
	n := len(wantTexts)
	writeDocs(t, dst, n, func(w *Writer) {
		if err := w.AddStore(b); err != nil {
			t.Fatal(err)
		}
	})
	out, err := Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	for d := range n {
		doc, err := out.Document(uint32(d), true)
		if err != nil || doc.Title != wantTitles[d] || doc.Text != string(wantTexts[d]) {
			t.Fatalf("Document(%d) = %.40q, %v; want %.40q", d, doc, err, wantTexts[d])
		}
		checkWindows(t, out, uint32(d), wantTexts[d], r)
	}
}

// TestStoredTokensChecked checks that tokens out of order or outside
// their text are refused.
func TestStoredTokensChecked(t *testing.T) {
	text := []byte("one two three")
	for _, toks := range [][]StoredToken{
		{{Start: 4, End: 7, Term: "two"}, {Start: 0, End: 3, Term: "one"}},
		{{Start: 8, End: 14, Term: "three"}},
		{{Start: 3, End: 3, Term: "x"}},
	} {
		b, err := NewStoreBuilder(t.TempDir(), StoreText)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Add("t", text, toks); err == nil {
			t.Errorf("Add with tokens %v: no error", toks)
		}
		b.Close()
	}
}

// TestDenseCode checks the (s,c)-dense code: every symbol reads back,
// codes grow with the symbol, and bytes that end no code are refused.
func TestDenseCode(t *testing.T) {
	for _, s := range []int{minStoppers, 128, 200, maxStoppers} {
		prev := 0
		rs := []uint64{0, 1, uint64(s) - 1, uint64(s), uint64(s) * 3, 1 << 16, 1<<32 - 1}
		slices.Sort(rs)
		for _, r := range rs {
			code := appendDense([]byte{0xff}, r, s)[1:]
			got, at := readDense(code, 0, byte(s))
			if got != r || at != uint32(len(code)) || len(code) < prev {
				t.Fatalf("s=%d: symbol %d coded %x reads %d, %d bytes", s, r, code, got, at)
			}
			prev = len(code)
		}
		if got, _ := readDense([]byte{byte(s)}, 0, byte(s)); got != math.MaxUint64 {
			t.Errorf("s=%d: a lone continuer reads %d", s, got)
		}
	}
	if s := bestStoppers([]uint64{1000, 10, 10, 1}); s < minStoppers || s > maxStoppers {
		t.Errorf("bestStoppers = %d", s)
	}
}

// TestWordsAnyBytes checks that texts of any bytes (invalid UTF-8, NULs,
// runs longer than a gap's lexicon entry, words at the text's edges)
// read back byte for byte, whole and in windows.
func TestWordsAnyBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	texts := [][]byte{nil, []byte("x"), []byte("   "), []byte("\xff\xfe a\x00b \xc3"), bytes.Repeat([]byte{' '}, 300)}
	for range 40 {
		b := make([]byte, r.IntN(2000))
		for i := range b {
			switch r.IntN(4) {
			case 0:
				b[i] = byte(r.Uint32())
			case 1:
				b[i] = ' '
			default:
				b[i] = byte('a' + r.IntN(3))
			}
		}
		texts = append(texts, b)
	}
	titles := make([]string, len(texts))
	dir := t.TempDir()
	writeStored(t, dir, StoreText, titles, texts)
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for d, want := range texts {
		doc, err := ix.Document(uint32(d), true)
		if err != nil || doc.Text != string(want) {
			t.Fatalf("Document(%d) = %q, %v; want %q", d, doc.Text, err, want)
		}
		checkWindows(t, ix, uint32(d), want, r)
	}
}

// TestTermBlockOf checks the search of the term blocks by key against
// one by whole terms, with first terms sharing their first 8 bytes,
// shorter than 8 and holding bytes past ASCII.
func TestTermBlockOf(t *testing.T) {
	firsts := []string{"a", "abcdefgh", "abcdefgh1", "abcdefgh2", "abcdefghz", "abd", "b", "\xc3\xa9t\xc3\xa9", "\xff"}
	f := &wordFile{firsts: firsts}
	for _, s := range firsts {
		f.keys = append(f.keys, termKey(s))
	}
	for _, tc := range []string{"", "0", "a", "a0", "abcdefg", "abcdefgh", "abcdefgh0", "abcdefgh1", "abcdefgh15", "abcdefgh3", "abcdefgi", "abd", "abda", "b", "c", "\xc3\xa9", "\xc3\xa9t\xc3\xa9s", "\xff", "\xff\xff"} {
		want := sort.Search(len(firsts), func(i int) bool { return firsts[i] > tc }) - 1
		if got := f.termBlockOf(tc); got != want {
			t.Errorf("termBlockOf(%q) = %d, want %d", tc, got, want)
		}
	}
}

// TestRankSetTerm checks rankSet.term: a rank's first term in the
// query's order, -1 for a rank no term has, ranks alike modulo the
// mask's size told apart.
func TestRankSetTerm(t *testing.T) {
	s := &rankSet{}
	for _, rt := range []rankTerm{{5, 0}, {5 + maskBits, 1}, {70000, 1}, {5, 2}, {9, 2}} {
		s.mask[rt.rank/64%(maskBits/64)] |= 1 << (rt.rank % 64)
		s.ranks = append(s.ranks, rt)
	}
	tests := []struct {
		rank uint32
		want int32
	}{
		{5, 0}, // two terms' surface: the first's
		{5 + maskBits, 1},
		{70000, 1},
		{9, 2},
		{6, -1},
		{5 + 2*maskBits, -1}, // the mask lets it by, the ranks do not
		{70000 - maskBits, -1},
	}
	for _, tc := range tests {
		if got := s.term(tc.rank); got != tc.want {
			t.Errorf("term(%d) = %d, want %d", tc.rank, got, tc.want)
		}
	}
	if got := (*rankSet)(nil).term(5); got != -1 {
		t.Errorf("a nil set: term(5) = %d, want -1", got)
	}
}
