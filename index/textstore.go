package index

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/klauspost/compress/s2"
)

// The stored text, textpieces.bin, is cut into pieces of about
// TextPieceBytes, each compressed on its own, so that a snippet reads the
// kilobyte or two around its query's terms rather than a whole document:
// the positions say which tokens those are, and each piece records the
// ordinal of its first token. The file is
//
//	dictionary   the s2 dictionary every piece is compressed with
//	pieces       s2 blocks, in docid order, each document's in text order
//	firsts       docs+1 uint32: document d's pieces are firsts[d]..firsts[d+1]-1
//	rows         pieces × 12 bytes: the block's offset (uint64, from the
//	             file's start) and the ordinal of the first token starting
//	             in the piece (uint32)
//	trailer      dictionary bytes, pieces, documents (uint32 each), the
//	             magic "gstexts2"
//
// all little-endian. A piece begins at a token's start (its document's
// first piece at byte 0), so that segmenting it alone finds the tokens
// the whole text has there.
//
// Why s2 with a dictionary: a snippet decodes one or two pieces per hit,
// and the format decides that cost. On 1 KiB pieces of the RFCs (one
// document in seven, 73 MB) s2 with a 64 KiB dictionary of text sampled
// across the store packs 2.40x and decodes a piece in 2.7 us on the
// loaded 2-core development machine; zstd with a trained dictionary packs
// 2.60x but decodes in 5.7 us, and without one 2.06x. s2's trained
// dictionary gained nothing over raw sampled text (2.39x) and costs
// seconds to build.

// fileTextPieces is the pieced text store's file name.
const fileTextPieces = "textpieces.bin"

// TextPieceBytes is the size a stored text's pieces are cut at: a piece
// ends before the first token starting this many bytes or more after the
// piece's start.
const TextPieceBytes = 1024

const (
	piecesMagic   = "gstexts2"
	pieceRowBytes = 12
	piecesTrailer = 12 + len(piecesMagic)
	dictSamples   = 64 // pieces sampled across the store for its dictionary
	maxDictBytes  = 64<<10 - 1
)

// TextCut is where a stored text's next piece begins: at byte Byte, the
// start of the text's token number Token (tokens counted as positions
// count them).
type TextCut struct{ Byte, Token uint32 }

// PieceCutter finds where a text is cut into pieces: fed the start of
// every token, in order, it cuts before the first token starting
// TextPieceBytes or more after the current piece's start.
type PieceCutter struct {
	cuts   []TextCut
	start  int
	tokens uint32
}

// Reset starts a new text.
func (c *PieceCutter) Reset() { c.cuts, c.start, c.tokens = c.cuts[:0], 0, 0 }

// Token takes the byte offset of the text's next token.
func (c *PieceCutter) Token(start int) {
	if start-c.start >= TextPieceBytes && c.tokens > 0 {
		c.cuts = append(c.cuts, TextCut{Byte: uint32(start), Token: c.tokens})
		c.start = start
	}
	c.tokens++
}

// Cuts returns the text's cuts so far, the first piece's (at 0) left out.
func (c *PieceCutter) Cuts() []TextCut { return c.cuts }

// pieceWriter gathers the pieced text store: the texts raw in a scratch
// file and, per piece, its raw size and first token; finish samples the
// dictionary and compresses.
type pieceWriter struct {
	scratch *os.File
	buf     *bufio.Writer
	sizes   []uint32 // per piece, raw bytes
	tokens  []uint32 // per piece, its first token
	firsts  []uint32 // per document, its first piece
	err     error
}

func newPieceWriter(dir string) (*pieceWriter, error) {
	f, err := os.CreateTemp(dir, ".store-"+fileTextPieces+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	return &pieceWriter{scratch: f, buf: bufio.NewWriterSize(f, 1<<20)}, nil
}

// add stores the next document's text, cut at cuts (ascending, inside the
// text, tokens ascending).
func (p *pieceWriter) add(text []byte, cuts []TextCut) error {
	if p.err != nil {
		return p.err
	}
	if len(p.firsts) == int(NoMoreDocs) {
		return fmt.Errorf("index: %s: more documents than docids", fileTextPieces)
	}
	if len(text) > maxBlockBytes {
		return fmt.Errorf("index: %s: document %d of %d bytes is too large to store", fileTextPieces, len(p.firsts), len(text))
	}
	p.firsts = append(p.firsts, uint32(len(p.sizes)))
	from, tok := uint32(0), uint32(0)
	for _, c := range cuts {
		if c.Byte <= from || c.Byte >= uint32(len(text)) || c.Token <= tok {
			return fmt.Errorf("index: %s: document %d: cut %+v out of order", fileTextPieces, len(p.firsts)-1, c)
		}
		p.sizes = append(p.sizes, c.Byte-from)
		p.tokens = append(p.tokens, tok)
		from, tok = c.Byte, c.Token
	}
	if len(text) > 0 {
		p.sizes = append(p.sizes, uint32(len(text))-from)
		p.tokens = append(p.tokens, tok)
	}
	if _, err := p.buf.Write(text); err != nil {
		p.err = fmt.Errorf("index: %s: %w", fileTextPieces, err)
	}
	return p.err
}

// docs is the number of documents added.
func (p *pieceWriter) docs() int { return len(p.firsts) }

// finish writes the store to w: a dictionary of pieces sampled evenly
// across the texts, each piece compressed with it, then the tables.
func (p *pieceWriter) finish(w io.Writer) error {
	if p.err != nil {
		return p.err
	}
	err := p.buf.Flush()
	offs := make([]uint64, len(p.sizes)+1) // raw offsets in the scratch file
	for i, s := range p.sizes {
		offs[i+1] = offs[i] + uint64(s)
	}
	var dict []byte
	for k := 0; err == nil && k < dictSamples && len(p.sizes) > 0 && len(dict) < maxDictBytes; k++ {
		i := k * len(p.sizes) / dictSamples
		n := min(int(p.sizes[i]), maxDictBytes-len(dict))
		at := len(dict)
		dict = append(dict, make([]byte, n)...)
		_, err = p.scratch.ReadAt(dict[at:], int64(offs[i]))
	}
	if err != nil {
		return fmt.Errorf("index: %s: %w", fileTextPieces, err)
	}
	d := pieceDict(dict)
	out := bufio.NewWriterSize(w, 1<<20)
	out.Write(dict)
	rows := make([]byte, 0, len(p.sizes)*pieceRowBytes)
	in := bufio.NewReaderSize(io.NewSectionReader(p.scratch, 0, int64(offs[len(p.sizes)])), 1<<20)
	at := uint64(len(dict))
	var raw, comp []byte
	for i, s := range p.sizes {
		raw = append(raw[:0], make([]byte, s)...)
		if _, err = io.ReadFull(in, raw); err != nil {
			return fmt.Errorf("index: %s: %w", fileTextPieces, err)
		}
		comp = d.EncodeBetter(comp[:0], raw)
		rows = binary.LittleEndian.AppendUint64(rows, at)
		rows = binary.LittleEndian.AppendUint32(rows, p.tokens[i])
		out.Write(comp)
		at += uint64(len(comp))
	}
	t := make([]byte, 0, 4*len(p.firsts)+4)
	for _, f := range append(p.firsts, uint32(len(p.sizes))) {
		t = binary.LittleEndian.AppendUint32(t, f)
	}
	out.Write(t)
	out.Write(rows)
	tr := binary.LittleEndian.AppendUint32(nil, uint32(len(dict)))
	tr = binary.LittleEndian.AppendUint32(tr, uint32(len(p.sizes)))
	tr = binary.LittleEndian.AppendUint32(tr, uint32(len(p.firsts)))
	out.Write(append(tr, piecesMagic...))
	if err := out.Flush(); err != nil {
		return fmt.Errorf("index: %s: %w", fileTextPieces, err)
	}
	return nil
}

func (p *pieceWriter) close() {
	p.scratch.Close()
	os.Remove(p.scratch.Name())
}

// pieceDict is the s2 dictionary of a store's sampled text; an empty or
// tiny sample gives none, and pieces are then compressed without.
func pieceDict(sample []byte) *s2.Dict {
	if len(sample) < 16 {
		return nil
	}
	return s2.MakeDict(sample, nil)
}

// pieceFile is a mapped pieced text store, its tables checked.
type pieceFile struct {
	data   []byte
	dict   *s2.Dict
	firsts []byte // docs+1 uint32
	rows   []byte
	n      int    // pieces
	docs   uint32 // documents
	end    uint64 // where the blocks end
}

// parsePieceFile checks a pieced text store of docs documents: its
// trailer, documents' first pieces that never decrease from 0 to the
// number of pieces, block offsets that strictly increase within the
// blocks, and first tokens that start each document at 0 and then
// increase.
func parsePieceFile(data []byte, docs uint64) (*pieceFile, error) {
	name := fileTextPieces
	if len(data) < piecesTrailer || string(data[len(data)-len(piecesMagic):]) != piecesMagic {
		return nil, corruptf(name, "no tables (magic %q missing)", piecesMagic)
	}
	tr := data[len(data)-piecesTrailer:]
	dictLen := uint64(binary.LittleEndian.Uint32(tr))
	n := uint64(binary.LittleEndian.Uint32(tr[4:]))
	nDocs := uint64(binary.LittleEndian.Uint32(tr[8:]))
	if nDocs != docs {
		return nil, corruptf(name, "holds %d documents, meta.json says %d", nDocs, docs)
	}
	tables := (docs+1)*4 + n*pieceRowBytes
	if dictLen > maxDictBytes || dictLen+tables > uint64(len(data)-piecesTrailer) {
		return nil, corruptf(name, "%d pieces of %d documents and a %d-byte dictionary in %d bytes", n, docs, dictLen, len(data))
	}
	end := uint64(len(data)-piecesTrailer) - tables
	f := &pieceFile{data: data, n: int(n), docs: uint32(docs), end: end, dict: pieceDict(data[:dictLen])}
	f.firsts = data[end : end+(docs+1)*4]
	f.rows = data[end+(docs+1)*4 : uint64(len(data)-piecesTrailer)]
	for d := range f.docs + 1 {
		first := f.first(d)
		switch {
		case d == 0 && first != 0, d == f.docs && first != f.n, d > 0 && first < f.first(d-1), first > f.n:
			return nil, corruptf(name, "document %d's first piece %d is out of order (%d pieces)", d, first, f.n)
		}
	}
	prev := dictLen
	for d := range f.docs {
		for i := f.first(d); i < f.first(d+1); i++ {
			off, tok := f.row(i)
			switch {
			case off < prev || off >= end || i > 0 && off == prev:
				return nil, corruptf(name, "piece %d: offset %d out of order", i, off)
			case i == f.first(d) && tok != 0, i > f.first(d) && tok <= f.tokenOf(i-1):
				return nil, corruptf(name, "piece %d: first token %d out of order", i, tok)
			}
			prev = off
		}
	}
	return f, nil
}

func (f *pieceFile) first(d uint32) int {
	return int(binary.LittleEndian.Uint32(f.firsts[4*d:]))
}

func (f *pieceFile) row(i int) (off uint64, tok uint32) {
	r := f.rows[i*pieceRowBytes:]
	return binary.LittleEndian.Uint64(r), binary.LittleEndian.Uint32(r[8:])
}

func (f *pieceFile) tokenOf(i int) uint32 { _, t := f.row(i); return t }

// piece returns piece i decoded, appended to dst.
func (f *pieceFile) piece(dst []byte, i int) ([]byte, error) {
	off, _ := f.row(i)
	end := f.end
	if i+1 < f.n {
		end, _ = f.row(i + 1)
	}
	src := f.data[off:end]
	n, err := s2.DecodedLen(src)
	if err != nil || n > maxBlockBytes {
		return nil, corruptf(fileTextPieces, "piece %d: bad length (%v)", i, err)
	}
	at := len(dst)
	dst = append(dst, make([]byte, n)...)
	var out []byte
	if f.dict != nil {
		out, err = f.dict.Decode(dst[at:], src)
	} else {
		out, err = s2.Decode(dst[at:], src)
	}
	if err != nil || len(out) != n {
		return nil, corruptf(fileTextPieces, "piece %d does not decode: %v", i, err)
	}
	return dst, nil
}

// text returns document d's whole text.
func (f *pieceFile) text(d uint32) (string, error) {
	var b []byte
	var err error
	for i := f.first(d); i < f.first(d+1) && err == nil; i++ {
		b, err = f.piece(b, i)
	}
	return string(b), err
}

// TextSpan is a stretch of a document's stored text: whole pieces.
type TextSpan struct {
	Text           string
	AtStart, AtEnd bool // whether Text begins or ends the document's text
}

// span returns the pieces of document d from the one holding token from
// through the one holding token to.
func (f *pieceFile) span(d, from, to uint32) (TextSpan, error) {
	lo, hi := f.first(d), f.first(d+1)
	if lo == hi {
		return TextSpan{AtStart: true, AtEnd: true}, nil
	}
	holding := func(t uint32) int {
		return lo + sort.Search(hi-lo, func(k int) bool { return f.tokenOf(lo+k) > t }) - 1
	}
	a, b := holding(from), holding(max(from, to))
	var buf []byte
	var err error
	for i := a; i <= b && err == nil; i++ {
		buf, err = f.piece(buf, i)
	}
	if err != nil {
		return TextSpan{}, err
	}
	return TextSpan{Text: string(buf), AtStart: a == lo, AtEnd: b == hi-1}, nil
}

// PiecedText reports whether the index stores its text in pieces, so
// that TextSpan reads only part of a document.
func (ix *Index) PiecedText() bool { return ix.pieces != nil }

// TextSpan returns the part of document docid's stored text that holds
// its tokens from through to (token ordinals, as positions count them):
// the pieces holding them, at least one, decoded. The index must store
// its text in pieces (PiecedText).
func (ix *Index) TextSpan(docid, from, to uint32) (TextSpan, error) {
	if ix.pieces == nil {
		return TextSpan{}, fmt.Errorf("index: the text is not stored in pieces")
	}
	if uint64(docid) >= ix.meta.Docs {
		return TextSpan{}, fmt.Errorf("index: no document %d: the index holds %d documents", docid, ix.meta.Docs)
	}
	var s TextSpan
	err := ix.Guard(func() (err error) {
		s, err = ix.pieces.span(docid, from, to)
		return err
	})
	return s, err
}
