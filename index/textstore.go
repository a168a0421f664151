package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// The stored text, textpieces.bin, is cut into pieces of about
// TextPieceBytes, each compressed on its own, so that a snippet reads the
// kilobyte or two around its query's terms rather than a whole document:
// the positions say which tokens those are, and each piece records the
// ordinal of its first token. A document of TextPieceBytes or more is cut
// at token starts (PieceCutter) into pieces of its own; smaller ones share
// pieces, whole, so that a crawl of short pages is not a crawl of tiny
// pieces. The file is
//
//	dictionary   raw zstd dictionary content every piece is compressed with
//	pieces       zstd frames, in docid order
//	tables       uvarints: per piece, its compressed size, its raw size
//	             and the ordinal of its first token in its document (0 for
//	             a piece of whole documents); then per document, the delta
//	             of its first piece from the previous document's and its
//	             byte offset in that piece
//	trailer      the dictionary's size, the number of pieces and of
//	             documents, the tables' size (uint32 each, little-endian),
//	             the magic "gstexts3"
//
// Open checks the tables and holds them in memory as offsets.
//
// Why zstd with a raw dictionary sampled across the store (1/32 of the
// text, at most 256 KiB): a snippet decodes one or two pieces per hit, so
// the pieces must stay small, and small pieces need a dictionary to pack
// well. On 1 KiB pieces of a quarter of rust-doc it packed 4.10x, decoding
// a piece in 4.2 us (2-core development machine, loaded); a 64 KiB one
// 3.19x, s2 with its largest (64 KiB) dictionary 3.18x; on the sample
// crawl 2.79x against s2's 2.46x. Sampled text needs no training, which
// took seconds for no gain.

// fileTextPieces is the pieced text store's file name.
const fileTextPieces = "textpieces.bin"

// TextPieceBytes is the size a stored text's pieces are cut at: a piece
// ends before the first token starting this many bytes or more after the
// piece's start.
const TextPieceBytes = 1024

const (
	piecesMagic   = "gstexts3"
	piecesTrailer = 16 + len(piecesMagic)
	maxDictBytes  = 256 << 10
	minDictBytes  = 4 << 10
	dictShare     = 32 // the dictionary samples 1/dictShare of the text
	dictSamples   = 256
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
// file and the tables; finish samples the dictionary and compresses.
type pieceWriter struct {
	scratch *os.File
	buf     *bufio.Writer
	sizes   []uint32 // per piece, raw bytes
	tokens  []uint32 // per piece, its first token
	frames  []uint32 // per piece, the size of its frame when copied compressed (0: raw in scratch)
	docs    []uint32 // per document, its first piece and its offset there
	offs    []uint32
	shared  bool                // the last piece holds whole small documents and has room
	dict    []byte              // the dictionary kept from another store (keepDict), nil to sample one
	same    map[*pieceFile]bool // per store added from, whether its dictionary is dict
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
	d := len(p.docs)
	switch {
	case d == int(NoMoreDocs):
		return fmt.Errorf("index: %s: more documents than docids", fileTextPieces)
	case len(text) > maxBlockBytes:
		return fmt.Errorf("index: %s: document %d of %d bytes is too large to store", fileTextPieces, d, len(text))
	}
	if len(text) < TextPieceBytes && len(cuts) == 0 {
		// A small document joins the last piece while it has room.
		if !p.shared {
			p.piece(0, 0, 0)
			p.shared = true
		}
		last := len(p.sizes) - 1
		p.docs, p.offs = append(p.docs, uint32(last)), append(p.offs, p.sizes[last])
		p.sizes[last] += uint32(len(text))
		p.shared = p.sizes[last] < TextPieceBytes
	} else {
		p.docs, p.offs, p.shared = append(p.docs, uint32(len(p.sizes))), append(p.offs, 0), false
		from, tok := uint32(0), uint32(0)
		for _, c := range cuts {
			if c.Byte <= from || c.Byte >= uint32(len(text)) || c.Token <= tok {
				return fmt.Errorf("index: %s: document %d: cut %+v out of order", fileTextPieces, d, c)
			}
			p.piece(c.Byte-from, tok, 0)
			from, tok = c.Byte, c.Token
		}
		p.piece(uint32(len(text))-from, tok, 0)
	}
	if _, err := p.buf.Write(text); err != nil {
		p.err = fmt.Errorf("index: %s: %w", fileTextPieces, err)
	}
	return p.err
}

// piece adds a piece of size raw bytes whose first token is tok, and
// whose frame of frame bytes is copied compressed (0: compressed here).
func (p *pieceWriter) piece(size, tok, frame uint32) {
	p.sizes, p.tokens, p.frames = append(p.sizes, size), append(p.tokens, tok), append(p.frames, frame)
}

// keepDict makes the store compress with f's dictionary instead of
// sampling its own, so that addFrames can copy f's pieces as they lie.
func (p *pieceWriter) keepDict(f *pieceFile) {
	p.dict = bytes.Clone(f.dict)
	if p.dict == nil {
		p.dict = []byte{} // none: pieces without a dictionary
	}
}

// addFrames stores the next document as document d of f, copying its
// pieces compressed, and reports whether it could: f's dictionary must be
// the one kept (keepDict), and the document must have pieces of its own
// (a document sharing a piece with others is stored by add).
func (p *pieceWriter) addFrames(f *pieceFile, d uint32) (bool, error) {
	a, b, start, end := f.bounds(d)
	if p.err != nil || !p.keeps(f) || start > 0 || b < a || end <= start ||
		f.docOffs[d+1] > 0 || len(p.docs) == int(NoMoreDocs) {
		return false, p.err
	}
	if b == a && f.rawEnd[a] < TextPieceBytes {
		return false, nil // a small document alone in its piece: it shares pieces here
	}
	p.docs, p.offs, p.shared = append(p.docs, uint32(len(p.sizes))), append(p.offs, 0), false
	for i := a; i <= b; i++ {
		frame := f.data[f.off[i]:f.off[i+1]]
		p.piece(f.rawEnd[i], f.token[i], uint32(len(frame)))
		if _, err := p.buf.Write(frame); err != nil {
			p.err = fmt.Errorf("index: %s: %w", fileTextPieces, err)
		}
	}
	return true, p.err
}

// keeps reports whether f's pieces are compressed with the dictionary
// kept, comparing the two once per store rather than once per document.
func (p *pieceWriter) keeps(f *pieceFile) bool {
	if p.dict == nil {
		return false
	}
	same, ok := p.same[f]
	if !ok {
		same = bytes.Equal(p.dict, f.dict)
		if p.same == nil {
			p.same = map[*pieceFile]bool{}
		}
		p.same[f] = same
	}
	return same
}

// finish writes the store to w: a dictionary of text sampled evenly
// across the pieces, each piece compressed with it, then the tables.
func (p *pieceWriter) finish(w io.Writer) error {
	if p.err != nil {
		return p.err
	}
	err := p.buf.Flush()
	var total uint64 // the scratch file's bytes
	for i := range p.sizes {
		total += uint64(p.stored(i))
	}
	dict := p.dict
	if dict == nil {
		dict, err = p.sampleDict(total, err)
	}
	var enc *zstd.Encoder
	if err == nil {
		enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(false),
			zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithEncoderDictRaw(dictID, dict))
	}
	if err != nil {
		return fmt.Errorf("index: %s: %w", fileTextPieces, err)
	}
	out := bufio.NewWriterSize(w, 1<<20)
	out.Write(dict)
	in := bufio.NewReaderSize(io.NewSectionReader(p.scratch, 0, int64(total)), 1<<20)
	comp, err := p.compress(enc, in, out)
	if err != nil {
		return fmt.Errorf("index: %s: %w", fileTextPieces, err)
	}
	var tables []byte
	for i, s := range p.sizes {
		tables = binary.AppendUvarint(tables, uint64(comp[i]))
		tables = binary.AppendUvarint(tables, uint64(s))
		tables = binary.AppendUvarint(tables, uint64(p.tokens[i]))
	}
	prev := uint32(0)
	for d, first := range p.docs {
		tables = binary.AppendUvarint(tables, uint64(first-prev))
		tables = binary.AppendUvarint(tables, uint64(p.offs[d]))
		prev = first
	}
	out.Write(tables)
	tr := binary.LittleEndian.AppendUint32(nil, uint32(len(dict)))
	tr = binary.LittleEndian.AppendUint32(tr, uint32(len(p.sizes)))
	tr = binary.LittleEndian.AppendUint32(tr, uint32(len(p.docs)))
	tr = binary.LittleEndian.AppendUint32(tr, uint32(len(tables)))
	out.Write(append(tr, piecesMagic...))
	if err := out.Flush(); err != nil {
		return fmt.Errorf("index: %s: %w", fileTextPieces, err)
	}
	return nil
}

// stored is how many bytes piece i takes in the scratch file: its text,
// or its frame when it was copied compressed.
func (p *pieceWriter) stored(i int) uint32 {
	if p.frames[i] > 0 {
		return p.frames[i]
	}
	return p.sizes[i]
}

// compressBatch is how many pieces a worker of compress takes at a time.
const compressBatch = 256

// compress reads the pieces from in, compresses them on GOMAXPROCS
// goroutines (a copied frame goes as it is) and writes them to out in
// order, returning each one's compressed size. zstd with a dictionary resets its tables from the
// dictionary for every piece, about 11 MB/s of text on the development
// machine: the slowest step of a build with a store, and of an update.
func (p *pieceWriter) compress(enc *zstd.Encoder, in io.Reader, out io.Writer) ([]uint32, error) {
	type batch struct {
		first, n int
		raw      []byte
		frames   []byte
		sizes    []uint32
		done     chan struct{}
	}
	workers := runtime.GOMAXPROCS(0)
	jobs, order := make(chan *batch, workers), make(chan *batch, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range jobs {
				at := 0
				for i := b.first; i < b.first+b.n; i++ {
					s := int(p.stored(i))
					before := len(b.frames)
					if p.frames[i] > 0 {
						b.frames = append(b.frames, b.raw[at:at+s]...)
					} else {
						b.frames = enc.EncodeAll(b.raw[at:at+s], b.frames)
					}
					b.sizes = append(b.sizes, uint32(len(b.frames)-before))
					at += s
				}
				close(b.done)
			}
		})
	}
	var readErr error
	go func() {
		defer close(order)
		defer close(jobs)
		for first := 0; first < len(p.sizes); first += compressBatch {
			n := min(compressBatch, len(p.sizes)-first)
			size := 0
			for i := first; i < first+n; i++ {
				size += int(p.stored(i))
			}
			b := &batch{first: first, n: n, raw: make([]byte, size), done: make(chan struct{})}
			if _, readErr = io.ReadFull(in, b.raw); readErr != nil {
				return
			}
			order <- b
			jobs <- b
		}
	}()
	sizes := make([]uint32, 0, len(p.sizes))
	for b := range order {
		<-b.done
		out.Write(b.frames)
		sizes = append(sizes, b.sizes...)
	}
	wg.Wait()
	return sizes, readErr
}

// dictID is the id the pieces' raw dictionary is registered under.
const dictID = 1

// sampleDict reads the dictionary from the scratch file: dictSamples
// stretches of text spread evenly across it, 1/dictShare of the text in
// all, between minDictBytes and maxDictBytes (none for a text smaller
// than that).
func (p *pieceWriter) sampleDict(total uint64, err error) ([]byte, error) {
	size := min(max(total/dictShare, minDictBytes), maxDictBytes)
	if err != nil || total < 2*size {
		return nil, err
	}
	dict := make([]byte, size)
	stretch := size / dictSamples
	for k := range uint64(dictSamples) {
		at := k * (total / dictSamples)
		if _, err := p.scratch.ReadAt(dict[k*stretch:(k+1)*stretch], int64(at)); err != nil {
			return nil, err
		}
	}
	return dict[:stretch*dictSamples], nil
}

func (p *pieceWriter) close() {
	p.scratch.Close()
	os.Remove(p.scratch.Name())
}

// pieceFile is a mapped pieced text store, its tables read.
type pieceFile struct {
	data    []byte
	dict    []byte // the raw dictionary, copied out of the mapping
	dec     *zstd.Decoder
	off     []uint64 // per piece and one more, where its frame starts
	rawEnd  []uint32 // per piece, its raw size
	token   []uint32 // per piece, its first token
	docs    []uint32 // per document and one more, its first piece
	docOffs []uint32 // per document and one more, its offset in that piece
}

// parsePieceFile reads and checks a pieced text store of docs documents:
// its trailer, and tables whose frames lie within the file, whose
// documents' first pieces never decrease and whose offsets lie within
// those pieces, in order, and whose first tokens start each document at 0
// and then increase.
func parsePieceFile(data []byte, docs uint64) (*pieceFile, error) {
	name := fileTextPieces
	if len(data) < piecesTrailer || string(data[len(data)-len(piecesMagic):]) != piecesMagic {
		return nil, corruptf(name, "no tables (magic %q missing)", piecesMagic)
	}
	tr := data[len(data)-piecesTrailer:]
	dictLen := uint64(binary.LittleEndian.Uint32(tr))
	n := uint64(binary.LittleEndian.Uint32(tr[4:]))
	nDocs := uint64(binary.LittleEndian.Uint32(tr[8:]))
	tablesLen := uint64(binary.LittleEndian.Uint32(tr[12:]))
	body := uint64(len(data) - piecesTrailer)
	switch {
	case nDocs != docs:
		return nil, corruptf(name, "holds %d documents, meta.json says %d", nDocs, docs)
	case dictLen > maxDictBytes || dictLen+tablesLen > body || n > tablesLen/3 || docs > tablesLen/2+1:
		return nil, corruptf(name, "%d pieces of %d documents, %d bytes of tables and a %d-byte dictionary in %d bytes", n, docs, tablesLen, dictLen, len(data))
	}
	f := &pieceFile{data: data, off: make([]uint64, n+1), rawEnd: make([]uint32, n), token: make([]uint32, n),
		docs: make([]uint32, docs+1), docOffs: make([]uint32, docs+1)}
	t := data[body-tablesLen : body]
	next := func() uint64 {
		v, k := binary.Uvarint(t)
		if k <= 0 {
			t = nil
			return math.MaxUint64
		}
		t = t[k:]
		return v
	}
	f.off[0] = dictLen
	for i := range n {
		size, raw, tok := next(), next(), next()
		if size > body || raw > maxBlockBytes || tok >= uint64(NoMoreDocs) || f.off[i]+size > body-tablesLen {
			return nil, corruptf(name, "piece %d: %d bytes, %d raw, first token %d: out of range", i, size, raw, tok)
		}
		f.off[i+1], f.rawEnd[i], f.token[i] = f.off[i]+size, uint32(raw), uint32(tok)
	}
	for d := range docs {
		delta, off := next(), next()
		first := uint64(0)
		if d > 0 {
			first = uint64(f.docs[d-1])
		}
		if delta > n-first || off > maxBlockBytes {
			return nil, corruptf(name, "document %d: first piece +%d, offset %d: out of range", d, delta, off)
		}
		f.docs[d], f.docOffs[d] = uint32(first+delta), uint32(off)
	}
	if len(t) != 0 {
		return nil, corruptf(name, "%d bytes after the tables", len(t))
	}
	f.docs[docs] = uint32(n)
	for d := range docs {
		if err := f.checkDoc(uint32(d)); err != nil {
			return nil, err
		}
	}
	// The dictionary is copied out of the mapping, as the tables are: a
	// file rewritten in place then fails to decode, never faults inside
	// the decoder. DecodeAll decodes on at most the decoder's concurrency
	// at once (4 by default): one per core, so that a server's requests
	// and a page's hits described in parallel never wait for a decoder.
	var err error
	f.dict = slices.Clone(data[:dictLen])
	f.dec, err = zstd.NewReader(nil, zstd.WithDecoderDictRaw(dictID, f.dict), zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(0))
	if err != nil {
		return nil, fmt.Errorf("index: %s: %w", name, err)
	}
	return f, nil
}

// checkDoc checks document d's place: it starts inside its first piece,
// ends where the next document starts, shares a piece only with
// documents beside it, and its own pieces' first tokens start at 0 and
// rise.
func (f *pieceFile) checkDoc(d uint32) error {
	a, b := f.docs[d], f.docs[d+1]
	o, next := f.docOffs[d], f.docOffs[d+1]
	n := uint32(len(f.rawEnd))
	switch {
	case a == n && o > 0, a < n && o > f.rawEnd[a]:
		return corruptf(fileTextPieces, "document %d starts at byte %d of piece %d", d, o, a)
	case a == b && next < o:
		return corruptf(fileTextPieces, "document %d ends before it starts", d)
	case o > 0 && (b > a+1 || b == a+1 && next > 0):
		return corruptf(fileTextPieces, "document %d shares piece %d but runs past it", d, a)
	case a < n && f.token[a] != 0:
		return corruptf(fileTextPieces, "document %d: its first piece's first token is %d", d, f.token[a])
	}
	last := b
	if next == 0 && b > a {
		last = b - 1
	}
	for i := a + 1; i <= last && i < n; i++ {
		if f.token[i] <= f.token[i-1] {
			return corruptf(fileTextPieces, "document %d: piece %d's first token %d out of order", d, i, f.token[i])
		}
	}
	return nil
}

// piece returns piece i decoded, appended to dst.
func (f *pieceFile) piece(dst []byte, i uint32) ([]byte, error) {
	raw := int(f.rawEnd[i])
	at := len(dst)
	out, err := f.dec.DecodeAll(f.data[f.off[i]:f.off[i+1]], slices.Grow(dst, raw))
	if err != nil || len(out)-at != raw {
		return nil, corruptf(fileTextPieces, "piece %d does not decode to its %d bytes: %v", i, raw, err)
	}
	return out, nil
}

// bounds returns the pieces document d's text lies in, a through b, and
// its byte range in their concatenation.
func (f *pieceFile) bounds(d uint32) (a, b uint32, start, end int) {
	a, b = f.docs[d], f.docs[d+1]
	start, end = int(f.docOffs[d]), 0
	if f.docOffs[d+1] > 0 { // the next document shares piece b: d ends inside it
		end = int(f.docOffs[d+1])
	} else if b > a {
		b--
		end = int(f.rawEnd[b])
	}
	for i := a; i < b; i++ {
		end += int(f.rawEnd[i])
	}
	return a, b, start, end
}

// text returns document d's whole text.
func (f *pieceFile) text(d uint32) (string, error) {
	a, b, start, end := f.bounds(d)
	if end <= start {
		return "", nil
	}
	var buf []byte
	var err error
	for i := a; i <= b && err == nil; i++ {
		buf, err = f.piece(buf, i)
	}
	if err != nil {
		return "", err
	}
	return string(buf[start:end]), nil
}

// TextSpan is a stretch of a document's stored text: whole pieces.
type TextSpan struct {
	Text           string
	AtStart, AtEnd bool // whether Text begins or ends the document's text
	// The tokens starting in Text (ordinals, as positions count them):
	// From up to End, exclusive; End is math.MaxUint32 when AtEnd.
	From, End uint32
}

// span returns the pieces of document d from the one holding token from
// through the one holding token to; a document sharing its piece is whole.
func (f *pieceFile) span(d, from, to uint32) (TextSpan, error) {
	a, b, start, end := f.bounds(d)
	if end <= start || start > 0 || a == b {
		t, err := f.text(d)
		return TextSpan{Text: t, AtStart: true, AtEnd: true, End: math.MaxUint32}, err
	}
	holding := func(t uint32) uint32 {
		return a + uint32(sort.Search(int(b-a)+1, func(k int) bool { return f.token[a+uint32(k)] > t })) - 1
	}
	x, y := holding(from), holding(max(from, to))
	size := 0
	for i := x; i <= y; i++ {
		size += int(f.rawEnd[i])
	}
	buf := make([]byte, 0, size) // one buffer for the pieces
	var err error
	for i := x; i <= y && err == nil; i++ {
		buf, err = f.piece(buf, i)
	}
	if err != nil {
		return TextSpan{}, err
	}
	ts := TextSpan{Text: string(buf), AtStart: x == a, AtEnd: y == b, From: f.token[x], End: math.MaxUint32}
	if y < b {
		ts.End = f.token[y+1]
	}
	return ts, nil
}

// PiecedText reports whether the index stores its text in pieces, so
// that TextSpan reads only part of a document.
func (ix *Index) PiecedText() bool {
	if ix.seg != nil {
		return ix.seg.parts[0].PiecedText()
	}
	return ix.pieces != nil
}

// TextSpan returns the part of document docid's stored text that holds
// its tokens from through to (token ordinals, as positions count them):
// the pieces holding them, at least one, decoded. The index must store
// its text in pieces (PiecedText).
func (ix *Index) TextSpan(docid, from, to uint32) (TextSpan, error) {
	if ix.seg != nil && uint64(docid) < ix.meta.Docs {
		p, d := ix.Locate(docid)
		return p.TextSpan(d, from, to)
	}
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

// cuts returns where document d's text was cut into pieces, as
// PieceCutter gave them to the writer (the first piece's left out): each
// of its pieces after the first, at its byte offset in the text and its
// first token. A text in one piece, or sharing one, has none. Adding the
// text again with these cuts lays out the same pieces.
func (f *pieceFile) cuts(d uint32) []TextCut {
	a, b, start, _ := f.bounds(d)
	if start > 0 || b <= a {
		return nil
	}
	var cuts []TextCut
	at := uint32(0)
	for i := a + 1; i <= b; i++ {
		at += f.rawEnd[i-1]
		cuts = append(cuts, TextCut{Byte: at, Token: f.token[i]})
	}
	return cuts
}
