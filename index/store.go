package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
)

// The document store keeps each document's title and extracted text in
// optional files:
//
//	titles.bin      every document's title (index.store titles or text), a block file
//	textwords.bin   every document's extracted text (index.store text),
//	                word-coded (textwords.go)
//	texts.bin       the same text as format 4 stored it, a block file: still
//	                read, no longer written
//
// A block file is a run of zstd frames, each a block of consecutive
// documents' records (their lengths as uvarints, then their bytes), then a
// table of one 16-byte row per block (the frame's offset, uint64; its first
// docid and its decoded size, uint32; little-endian), the number of blocks
// and of documents (uint32 each) and the magic "gsstore1". Reading one
// document decodes one block; titles lie apart from the texts so that a
// page of results decodes small blocks only.
//
// zstd (klauspost/compress) at its default level, in blocks of about
// 32 KiB of text, compresses the sample crawl's text 3.70 times at about
// 60 us a block to decode; deflate reaches 3.94 times but decodes 3 times
// slower, s2 and snappy decode faster but compress only 2.5 to 2.9 times
// (docs/index-format.md, "Document store").

// File names of the document store.
const (
	fileTitles = "titles.bin"
	fileTexts  = "texts.bin"
)

// What an index stores of its documents (index.store).
const (
	StoreNone   = "none"   // nothing beyond the URL
	StoreTitles = "titles" // titles
	StoreText   = "text"   // titles and extracted text
)

// CheckStore returns an error unless mode is StoreNone, StoreTitles or
// StoreText.
func CheckStore(mode string) error {
	switch mode {
	case StoreNone, StoreTitles, StoreText:
		return nil
	}
	return fmt.Errorf("index: unknown store %q (want none, titles or text)", mode)
}

// Document is what an index holds of one document.
type Document struct{ URL, Title, Text string } // Text empty unless stored and asked for

// titleBlockBytes is the target decoded size of a block of titles: they
// are read for every hit of a page.
const titleBlockBytes = 4 << 10

// maxBlockBytes bounds a block's decoded size, so that a damaged table
// cannot ask for a huge allocation; a larger document is refused.
const maxBlockBytes = 256 << 20

const (
	storeMagic    = "gsstore1"
	storeRowBytes = 16
	storeTrailer  = 8 + len(storeMagic)
)

// StoreBuilder gathers the document store of an index being built: each
// document's title and, for StoreText, its text, in docid order, in
// scratch files until Writer.AddStore moves the store into the new
// generation.
type StoreBuilder struct {
	titles *blockWriter
	texts  *wordWriter            // nil for StoreTitles
	terms  map[*wordFile][]string // per store added from, its surfaces' terms
}

// NewStoreBuilder starts a store of mode StoreTitles or StoreText whose
// blocks wait in scratch files in dir.
func NewStoreBuilder(dir, mode string) (*StoreBuilder, error) {
	if mode != StoreTitles && mode != StoreText {
		return nil, fmt.Errorf("index: a store builder stores titles or text, not %q", mode)
	}
	var b StoreBuilder
	var err error
	if b.titles, err = newBlockWriter(dir, fileTitles, titleBlockBytes); err == nil && mode == StoreText {
		b.texts, err = newWordWriter(dir)
	}
	if err != nil {
		b.Close()
		return nil, err
	}
	return &b, nil
}

// Add stores the next document's title and text, the text with its
// tokens as the analyzer cut them (every token, in order, as positions
// count them); a titles-only store ignores both.
func (b *StoreBuilder) Add(title string, text []byte, tokens []StoredToken) error {
	if err := b.titles.add([]byte(title)); err != nil {
		return err
	}
	if b.texts != nil {
		return b.texts.add(text, tokens)
	}
	return nil
}

// AddFrom stores the next document as document d of ix stores its text,
// with the given title.
func (b *StoreBuilder) AddFrom(title string, ix *Index, d uint32) error {
	if b.texts == nil || ix.words == nil {
		return b.Add(title, nil, nil)
	}
	return ix.Guard(func() error {
		terms, ok := b.terms[ix.words]
		if !ok {
			var err error
			if terms, err = ix.words.surfaceTerms(); err != nil {
				return err
			}
			if b.terms == nil {
				b.terms = map[*wordFile][]string{}
			}
			b.terms[ix.words] = terms
		}
		text, toks, err := ix.words.tokens(d, terms)
		if err != nil {
			return err
		}
		return b.Add(title, text, toks)
	})
}

// Close removes the scratch files.
func (b *StoreBuilder) Close() {
	if b.titles != nil {
		b.titles.close()
	}
	if b.texts != nil {
		b.texts.close()
	}
}

// AddStore writes the store b gathered into the new generation, finishing
// and closing b; b must hold one document per docid.
func (w *Writer) AddStore(b *StoreBuilder) error {
	defer b.Close()
	if int(b.titles.docs) != len(w.docLens) || b.texts != nil && len(b.texts.docs) != len(w.docLens) {
		return fmt.Errorf("index: the store holds %d documents, the index %d", b.titles.docs, len(w.docLens))
	}
	f, err := w.createOptional(fileTitles)
	if err == nil {
		err = b.titles.finish(f)
	}
	if err == nil && b.texts != nil {
		if f, err = w.createOptional(fileTextWords); err == nil {
			err = b.texts.finish(f)
		}
	}
	return err
}

// copyStore writes ix's store files, as they lie, into the new
// generation.
func (w *Writer) copyStore(ix *Index) error {
	for _, name := range []string{fileTitles, fileTexts, fileTextWords} {
		data, ok := ix.maps[name]
		if !ok {
			continue
		}
		f, err := w.createOptional(name)
		if err != nil {
			return err
		}
		if err := ix.Guard(func() error { _, err := f.Write(data); return err }); err != nil {
			return err
		}
	}
	return nil
}

// blockWriter compresses one block file's blocks into a scratch file and
// keeps its table.
type blockWriter struct {
	name    string // the block file's name in the index
	scratch *os.File
	buf     *bufio.Writer
	enc     *zstd.Encoder
	target  int
	lens    []byte // the current block's record lengths
	data    []byte // its records
	raw     []byte // lens and data, as compressed
	comp    []byte
	n       uint32 // records in the current block
	docs    uint32 // records so far
	off     uint64 // bytes of blocks so far
	table   []byte
	blocks  uint32
	err     error
}

func newBlockWriter(dir, name string, target int) (*blockWriter, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	f, err := os.CreateTemp(dir, ".store-"+name+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	return &blockWriter{name: name, scratch: f, buf: bufio.NewWriterSize(f, 1<<20), enc: enc, target: target}, nil
}

func (b *blockWriter) add(rec []byte) error {
	if b.err != nil {
		return b.err
	}
	if b.docs == NoMoreDocs {
		return fmt.Errorf("index: %s: more documents than docids", b.name)
	}
	need := len(b.lens) + len(b.data) + binary.MaxVarintLen64 + len(rec)
	if need > maxBlockBytes && b.n > 0 {
		b.flush()
		need = binary.MaxVarintLen64 + len(rec)
	}
	if need > maxBlockBytes {
		return fmt.Errorf("index: %s: document %d of %d bytes is too large to store", b.name, b.docs, len(rec))
	}
	b.lens = binary.AppendUvarint(b.lens, uint64(len(rec)))
	b.data = append(b.data, rec...)
	b.n++
	b.docs++
	if len(b.lens)+len(b.data) >= b.target {
		b.flush()
	}
	return b.err
}

// flush compresses the current block into the scratch file.
func (b *blockWriter) flush() {
	b.raw = append(append(b.raw[:0], b.lens...), b.data...)
	b.comp = b.enc.EncodeAll(b.raw, b.comp[:0])
	b.table = binary.LittleEndian.AppendUint64(b.table, b.off)
	b.table = binary.LittleEndian.AppendUint32(b.table, b.docs-b.n)
	b.table = binary.LittleEndian.AppendUint32(b.table, uint32(len(b.raw)))
	if _, err := b.buf.Write(b.comp); err != nil && b.err == nil {
		b.err = fmt.Errorf("index: %s: %w", b.name, err)
	}
	b.off += uint64(len(b.comp))
	b.blocks++
	b.lens, b.data, b.n = b.lens[:0], b.data[:0], 0
}

// finish writes the block file to w: the blocks from the scratch file,
// then the table.
func (b *blockWriter) finish(w io.Writer) error {
	if b.n > 0 {
		b.flush()
	}
	if b.err != nil {
		return b.err
	}
	err := b.buf.Flush()
	if err == nil {
		_, err = b.scratch.Seek(0, io.SeekStart)
	}
	if err == nil {
		_, err = io.Copy(w, b.scratch)
	}
	if err == nil {
		t := binary.LittleEndian.AppendUint32(b.table, b.blocks)
		t = binary.LittleEndian.AppendUint32(t, b.docs)
		_, err = w.Write(append(t, storeMagic...))
	}
	if err != nil {
		return fmt.Errorf("index: %s: %w", b.name, err)
	}
	return nil
}

func (b *blockWriter) close() {
	b.scratch.Close()
	os.Remove(b.scratch.Name())
}

// blockFile is a mapped block file, its table checked.
type blockFile struct {
	name   string
	blocks []byte // the frames
	table  []byte // the rows
	n      int    // blocks
	docs   uint32
	cache  []atomic.Pointer[decodedBlock] // nil, or decoded blocks by block number mod len
}

// decodedBlock is block i of a block file, decoded.
type decodedBlock struct {
	i    int
	raw  []byte
	offs []uint32 // record k is raw[offs[k]:offs[k+1]]
}

// record returns the block's record k.
func (b *decodedBlock) record(k uint32) []byte { return b.raw[b.offs[k]:b.offs[k+1]] }

// titleCacheSlots bounds the decoded title blocks kept: 4,096 blocks of
// about 4 KiB, 16 MiB at most. A page of results reads ten titles from as
// many blocks, and decoding each took about 8 us, most of a request
// without snippets; kept decoded, a title costs a lookup.
const titleCacheSlots = 4096

// parseBlockFile checks a block file of docs documents: its trailer, and a
// table whose offsets and first docids strictly increase from 0 within
// the file and the documents, and whose decoded sizes are within bounds.
func parseBlockFile(name string, data []byte, docs uint64) (*blockFile, error) {
	if len(data) < storeTrailer || string(data[len(data)-len(storeMagic):]) != storeMagic {
		return nil, corruptf(name, "no block table (magic %q missing)", storeMagic)
	}
	tr := data[len(data)-storeTrailer:]
	n, nDocs := uint64(binary.LittleEndian.Uint32(tr)), uint64(binary.LittleEndian.Uint32(tr[4:]))
	if nDocs != docs {
		return nil, corruptf(name, "holds %d documents, meta.json says %d", nDocs, docs)
	}
	if n*storeRowBytes > uint64(len(data)-storeTrailer) || (n == 0) != (docs == 0) || n > docs {
		return nil, corruptf(name, "%d blocks for %d documents in %d bytes", n, docs, len(data))
	}
	end := len(data) - storeTrailer - int(n)*storeRowBytes
	// The table is copied out of the mapping: rows checked here and read
	// for every title must not change if the file is rewritten in place
	// (an out-of-range offset would panic; a changed frame only fails to
	// decode).
	table := bytes.Clone(data[end : len(data)-storeTrailer])
	f := &blockFile{name: name, blocks: data[:end], table: table, n: int(n), docs: uint32(docs)}
	for i := range f.n {
		off, first, raw := f.row(i)
		switch {
		case i == 0 && (off != 0 || first != 0):
			return nil, corruptf(name, "block 0 starts at offset %d, docid %d", off, first)
		case i > 0 && f.startOf(i-1) >= off:
			return nil, corruptf(name, "block %d: offset %d does not follow the previous block's", i, off)
		case i > 0 && f.firstOf(i-1) >= first:
			return nil, corruptf(name, "block %d: first docid %d does not follow the previous block's", i, first)
		case off >= uint64(end) || uint64(first) >= nDocs:
			return nil, corruptf(name, "block %d: offset %d or docid %d out of range", i, off, first)
		case raw > maxBlockBytes:
			return nil, corruptf(name, "block %d: decoded size %d exceeds %d", i, raw, maxBlockBytes)
		}
	}
	return f, nil
}

func (f *blockFile) row(i int) (off uint64, first, raw uint32) {
	r := f.table[i*storeRowBytes:]
	return binary.LittleEndian.Uint64(r), binary.LittleEndian.Uint32(r[8:]), binary.LittleEndian.Uint32(r[12:])
}

func (f *blockFile) startOf(i int) uint64 { o, _, _ := f.row(i); return o }
func (f *blockFile) firstOf(i int) uint32 { _, d, _ := f.row(i); return d }

// storeDecoder decodes blocks, for every index and goroutine: DecodeAll is
// safe for concurrent use. Its output never outgrows the buffer given, so
// that a damaged frame cannot claim more than its row's decoded size.
var storeDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderConcurrency(0))
})

// record returns document d's record, decoding its block.
func (f *blockFile) record(d uint32) ([]byte, error) {
	if d >= f.docs {
		return nil, fmt.Errorf("index: %s: no document %d (%d documents)", f.name, d, f.docs)
	}
	i := f.blockOf(d)
	first, next := f.span(i)
	b, err := f.block(i, next-first)
	if err != nil {
		return nil, err
	}
	return b.record(d - first), nil
}

// blockOf is the block holding document d.
func (f *blockFile) blockOf(d uint32) int {
	lo, hi := 0, f.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if f.firstOf(mid) <= d {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

// span returns the documents of block i: from first to before next.
func (f *blockFile) span(i int) (first, next uint32) {
	first, next = f.firstOf(i), f.docs
	if i+1 < f.n {
		next = f.firstOf(i + 1)
	}
	return first, next
}

// block returns block i, of n records, decoded and its records found,
// from the cache when it holds it: a title then costs no walk through
// its block's record lengths.
func (f *blockFile) block(i int, n uint32) (*decodedBlock, error) {
	var slot *atomic.Pointer[decodedBlock]
	if f.cache != nil {
		slot = &f.cache[i%len(f.cache)]
		if b := slot.Load(); b != nil && b.i == i {
			return b, nil
		}
	}
	b, err := f.decode(i, n)
	if err == nil && slot != nil {
		slot.Store(b)
	}
	return b, err
}

// decode returns block i, of n records, decoded and its records found.
func (f *blockFile) decode(i int, n uint32) (*decodedBlock, error) {
	off, _, rawSize := f.row(i)
	end := uint64(len(f.blocks))
	if i+1 < f.n {
		end = f.startOf(i + 1)
	}
	dec, err := storeDecoder()
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	raw, err := dec.DecodeAll(f.blocks[off:end], make([]byte, 0, rawSize))
	if err != nil || len(raw) != int(rawSize) {
		return nil, corruptf(f.name, "block %d does not decode to its %d bytes: %v", i, rawSize, err)
	}
	offs, err := recordOffsets(raw, n)
	if err != nil {
		return nil, corruptf(f.name, "block %d: %v", i, err)
	}
	return &decodedBlock{i: i, raw: raw, offs: offs}, nil
}

// recordOffsets returns where the n records of a decoded block lie in
// it, n+1 offsets: the block is n uvarint lengths that add up to the
// bytes after them.
func recordOffsets(raw []byte, n uint32) ([]uint32, error) {
	// Every length takes a byte: bound n before allocating for it.
	if uint64(n) > uint64(len(raw)) {
		return nil, fmt.Errorf("%d records in a block of %d bytes", n, len(raw))
	}
	offs := make([]uint32, n+1)
	var total uint64
	p := 0
	for j := range n {
		l, w := binary.Uvarint(raw[p:])
		if w <= 0 || l > uint64(len(raw)) {
			return nil, errors.New("bad record length")
		}
		p += w
		offs[j] = uint32(total)
		total += l
	}
	if total != uint64(len(raw)-p) {
		return nil, fmt.Errorf("records of %d bytes in a block of %d", total, len(raw)-p)
	}
	offs[n] = uint32(total)
	for j := range offs {
		offs[j] += uint32(p)
	}
	return offs, nil
}

// openStore checks the mapped store files, if any: texts only beside
// titles.
func (ix *Index) openStore() error {
	for _, p := range []struct {
		name string
		f    **blockFile
	}{{fileTitles, &ix.titles}, {fileTexts, &ix.texts}} {
		if _, named := ix.meta.Files[p.name]; !named {
			continue
		}
		data := ix.maps[p.name]
		err := ix.Guard(func() (err error) {
			*p.f, err = parseBlockFile(p.name, data, ix.meta.Docs)
			return err
		})
		if err != nil {
			return err
		}
	}
	if _, named := ix.maps[fileTextPieces]; named {
		return fmt.Errorf("index: %s: %w: the text is stored in zstd pieces, as builds before the word-coded store (%s) wrote it: rebuild the index",
			fileTextPieces, ErrVersion, fileTextWords)
	}
	if data, named := ix.maps[fileTextWords]; named {
		err := ix.Guard(func() (err error) {
			ix.words, err = parseWordFile(data, ix.meta.Docs)
			return err
		})
		if err != nil {
			return err
		}
	}
	if ix.titles != nil {
		ix.titles.cache = make([]atomic.Pointer[decodedBlock], min(ix.titles.n, titleCacheSlots))
	}
	if (ix.texts != nil || ix.words != nil) && ix.titles == nil {
		return corruptf(fileMeta, "files names a stored text without %s", fileTitles)
	}
	return nil
}

// Store says what the index stores of its documents: StoreNone,
// StoreTitles or StoreText.
func (ix *Index) Store() string {
	if ix.seg != nil {
		return ix.seg.parts[0].Store()
	}
	switch {
	case ix.texts != nil, ix.words != nil:
		return StoreText
	case ix.titles != nil:
		return StoreTitles
	}
	return StoreNone
}

// Document returns what the index holds of document docid: its URL, its
// title if stored, and, when withText is set and the index stores text,
// its extracted text. Reading the title or text decodes one block each; a
// damaged block gives an error wrapping ErrCorrupt.
func (ix *Index) Document(docid uint32, withText bool) (Document, error) {
	if ix.seg != nil && uint64(docid) < ix.meta.Docs {
		p, d := ix.Locate(docid)
		return p.Document(d, withText)
	}
	if uint64(docid) >= ix.meta.Docs {
		return Document{}, fmt.Errorf("index: no document %d: the index holds %d documents", docid, ix.meta.Docs)
	}
	doc := Document{URL: ix.URL(docid)}
	err := ix.Guard(func() error {
		if ix.titles != nil {
			t, err := ix.titles.record(docid)
			if err != nil {
				return err
			}
			doc.Title = string(t)
		}
		switch {
		case withText && ix.words != nil:
			t, err := ix.words.text(docid)
			if err != nil {
				return err
			}
			doc.Text = t
		case withText && ix.texts != nil:
			t, err := ix.texts.record(docid)
			if err != nil {
				return err
			}
			doc.Text = string(t)
		}
		return nil
	})
	if err != nil {
		return Document{}, err
	}
	return doc, nil
}

// StoreBytes is the size of the document store's files.
func (m Meta) StoreBytes() int64 {
	return m.fileBytes(fileTitles) + m.fileBytes(fileTexts) + m.fileBytes(fileTextWords)
}
