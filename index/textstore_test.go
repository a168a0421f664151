package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// storedPieces writes 200 random documents with text and returns the
// index directory and its textpieces.bin.
func storedPieces(t testing.TB) (dir string, data []byte, texts [][]byte) {
	titles, texts := randomDocs(rand.New(rand.NewPCG(9, 10)), 200)
	dir = t.TempDir()
	writeStored(t, dir, StoreText, titles, texts)
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	data, err = os.ReadFile(filepath.Join(dir, ix.meta.Generation, fileTextPieces))
	if err != nil {
		t.Fatal(err)
	}
	return dir, data, texts
}

// TestTextPiecesCorrupt checks that damaged tables are refused and that
// garbage pieces behind tables that check give errors, not panics.
func TestTextPiecesCorrupt(t *testing.T) {
	_, data, texts := storedPieces(t)
	f, err := parsePieceFile(data, 200)
	if err != nil {
		t.Fatal(err)
	}
	for d := range uint32(200) {
		if got, err := f.text(d); err != nil || got != string(texts[d]) {
			t.Fatalf("text(%d) = %.40q, %v; want %.40q", d, got, err, texts[d])
		}
	}
	tr := data[len(data)-piecesTrailer:]
	dictLen, tablesLen := binary.LittleEndian.Uint32(tr), binary.LittleEndian.Uint32(tr[12:])
	body := len(data) - piecesTrailer
	garbage := slices.Clone(data)
	r := rand.New(rand.NewPCG(11, 12))
	for i := int(dictLen); i < body-int(tablesLen); i++ {
		garbage[i] = byte(r.Uint32())
	}
	g, err := parsePieceFile(garbage, 200)
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for d := range uint32(200) {
		if _, err := g.text(d); err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("text(%d) of garbage = %v, want ErrCorrupt", d, err)
			}
			bad++
		}
	}
	if bad == 0 {
		t.Error("no garbage piece was noticed")
	}

	trailer := func(field int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[len(b)-piecesTrailer+4*field:], v)
			return b
		}
	}
	tests := []struct {
		name string
		edit func([]byte) []byte
	}{
		{"no magic", func(b []byte) []byte { return b[:len(b)-1] }},
		{"empty", func([]byte) []byte { return nil }},
		{"dictionary", trailer(0, maxDictBytes+1)},
		{"pieces", trailer(1, binary.LittleEndian.Uint32(tr[4:])+1)},
		{"documents", trailer(2, 201)},
		{"tables", trailer(3, tablesLen+1)},
		{"tables end early", func(b []byte) []byte { b[body-1] |= 0x80; return b }},
	}
	for _, tc := range tests {
		if _, err := parsePieceFile(tc.edit(slices.Clone(data)), 200); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: parsePieceFile = %v, want ErrCorrupt", tc.name, err)
		}
	}
	// A changed byte of the tables is refused or reads without panics.
	for range 500 {
		b := slices.Clone(data)
		b[body-int(tablesLen)+r.IntN(int(tablesLen))] ^= byte(1 + r.IntN(255))
		f, err := parsePieceFile(b, 200)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("parsePieceFile of changed tables = %v, want ErrCorrupt", err)
			}
			continue
		}
		for d := range uint32(200) {
			f.text(d)
			f.span(d, d, 3*d)
		}
	}
}

// FuzzPieceFile checks that the pieced text store's reader never panics
// on any bytes, whatever it accepts.
func FuzzPieceFile(f *testing.F) {
	_, data, _ := storedPieces(f)
	f.Add(data, uint16(200))
	f.Add([]byte(piecesMagic), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, docs uint16) {
		pf, err := parsePieceFile(data, uint64(docs))
		if err != nil {
			return
		}
		for d := range min(uint32(docs), 64) {
			pf.text(d)
			pf.span(d, uint32(d), uint32(d)*7)
		}
	})
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
	if ix.Store() != StoreText || ix.PiecedText() {
		t.Errorf("Store() = %q, PiecedText() = %v; want text, not pieced", ix.Store(), ix.PiecedText())
	}
	for d := range texts {
		doc, err := ix.Document(uint32(d), true)
		if err != nil || doc.Title != titles[d] || !bytes.Equal([]byte(doc.Text), texts[d]) {
			t.Fatalf("Document(%d) = %.40q, %v", d, doc, err)
		}
	}
	if _, err := ix.TextSpan(0, 0, 1); err == nil {
		t.Error("TextSpan of whole texts: no error")
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

// TestAddFrom stores documents of one index into another keeping its
// dictionary: texts of their own pieces are copied compressed, the rest
// decoded and cut again, new texts compressed with the kept dictionary;
// every text and span reads back as stored.
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
	b.KeepDictionary(ix)
	for d := 0; d < len(texts); d += 2 {
		if err := b.AddFrom(titles[d], ix, uint32(d)); err != nil {
			t.Fatal(err)
		}
		wantTitles, wantTexts = append(wantTitles, titles[d]), append(wantTexts, texts[d])
	}
	for d := range newTexts {
		if err := b.Add(newTitles[d], newTexts[d], wordCuts(newTexts[d])); err != nil {
			t.Fatal(err)
		}
		wantTitles, wantTexts = append(wantTitles, newTitles[d]), append(wantTexts, newTexts[d])
	}
	copied := 0
	for _, f := range b.texts.frames {
		if f > 0 {
			copied++
		}
	}
	if copied == 0 {
		t.Fatal("no piece was copied compressed")
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
	if !bytes.Equal(out.pieces.dict, ix.pieces.dict) {
		t.Error("the dictionary was not kept")
	}
	for d := range n {
		doc, err := out.Document(uint32(d), true)
		if err != nil || doc.Title != wantTitles[d] || doc.Text != string(wantTexts[d]) {
			t.Fatalf("Document(%d) = %.40q, %v; want %.40q", d, doc, err, wantTexts[d])
		}
		checkSpans(t, out, uint32(d), wantTexts[d], r)
	}
}
