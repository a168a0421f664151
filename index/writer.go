package index

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index/bm25"
)

// WriterOptions choose the codecs and record how the index was built.
type WriterOptions struct {
	DocIDCodec string      // registry name of the docid codec
	FreqCodec  string      // registry name of the frequency codec
	Order      string      // docid order, recorded in meta.json ("url", "crawl", "random", ...)
	BM25       bm25.Params // parameters of the stored score bounds
}

// Writer lays out an index directory. The document table is given up front
// (block max scores need every document's length); posting lists are then
// added one term at a time in increasing term order, and Close commits.
type Writer struct {
	dir      string
	opts     WriterOptions
	dc, fc   codecplugins.Codec
	bs       int
	docLens  []uint32
	norms    []float32
	avgLen   float32
	tokens   uint64
	docs     *fileWriter
	freqs    *fileWriter
	lexicon  *fileWriter
	terms    *fileWriter
	skipCols [4]*columnFile // last docid, block max, docid offset, freq offset
	files    map[string]FileMeta
	prevTerm string
	nTerms   uint64
	postings uint64
	blocks   uint64
	gaps     []uint32
	fm1      []uint32
	closed   bool
}

// NewWriter starts an index in dir (created if missing) for the documents
// whose lengths and URLs are given; docid i has docLens[i] and urls[i].
// An existing index in dir stops being valid at once and is replaced when
// Close returns.
func NewWriter(dir string, opts WriterOptions, docLens []uint32, urls []string) (*Writer, error) {
	if len(docLens) != len(urls) {
		return nil, fmt.Errorf("index: %d document lengths but %d URLs", len(docLens), len(urls))
	}
	if uint64(len(docLens)) >= uint64(NoMoreDocs) {
		return nil, fmt.Errorf("index: %d documents exceed the docid space", len(docLens))
	}
	dc, err := codecplugins.Lookup(opts.DocIDCodec)
	if err != nil {
		return nil, fmt.Errorf("index: docid codec: %w", err)
	}
	fc, err := codecplugins.Lookup(opts.FreqCodec)
	if err != nil {
		return nil, fmt.Errorf("index: freq codec: %w", err)
	}
	bs := dc.BlockSize()
	if fc.BlockSize() < bs {
		return nil, fmt.Errorf("index: freq codec %s has block size %d, smaller than docid codec %s's %d",
			fc.Name(), fc.BlockSize(), dc.Name(), bs)
	}
	if opts.BM25 == (bm25.Params{}) {
		opts.BM25 = bm25.DefaultParams()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	// From here on, dir holds no valid index until Close writes meta.json.
	if err := os.Remove(filepath.Join(dir, fileMeta)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("index: %w", err)
	}
	w := &Writer{dir: dir, opts: opts, dc: dc, fc: fc, bs: bs, docLens: docLens, files: map[string]FileMeta{}}
	for _, l := range docLens {
		w.tokens += uint64(l)
	}
	if len(docLens) > 0 {
		w.avgLen = float32(float64(w.tokens) / float64(len(docLens)))
	}
	if w.avgLen == 0 {
		w.avgLen = 1 // every document is empty: no term will ever be scored
	}
	w.norms = opts.BM25.Norms(docLens, w.avgLen)
	if err := w.writeDocTable(urls); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		dst  **fileWriter
		name string
	}{{&w.docs, fileDocIDs}, {&w.freqs, fileFreqs}, {&w.lexicon, fileLexicon}, {&w.terms, fileTerms}} {
		if *f.dst, err = createFile(dir, f.name); err != nil {
			w.Abort()
			return nil, err
		}
	}
	for i := range w.skipCols {
		if w.skipCols[i], err = newColumnFile(dir); err != nil {
			w.Abort()
			return nil, err
		}
	}
	return w, nil
}

// writeDocTable writes doclens.bin, urls.bin and urloffs.bin.
func (w *Writer) writeDocTable(urls []string) error {
	lens, err := createFile(w.dir, fileDocLens)
	if err != nil {
		return err
	}
	var b [8]byte
	for _, l := range w.docLens {
		binary.LittleEndian.PutUint32(b[:4], l)
		lens.Write(b[:4])
	}
	if w.files[fileDocLens], err = lens.commit(w.dir); err != nil {
		return err
	}
	u, err := createFile(w.dir, fileURLs)
	if err != nil {
		return err
	}
	offs, err := createFile(w.dir, fileURLOffs)
	if err != nil {
		u.abort()
		return err
	}
	var off uint64
	for _, s := range urls {
		binary.LittleEndian.PutUint64(b[:], off)
		offs.Write(b[:])
		io.WriteString(u, s)
		off += uint64(len(s))
	}
	binary.LittleEndian.PutUint64(b[:], off)
	offs.Write(b[:])
	if w.files[fileURLs], err = u.commit(w.dir); err != nil {
		offs.abort()
		return err
	}
	w.files[fileURLOffs], err = offs.commit(w.dir)
	return err
}

// AddTerm appends a term's posting list: strictly increasing docids below
// the document count, and their frequencies (each at least 1). Terms must
// come in strictly increasing byte order.
func (w *Writer) AddTerm(term string, docids, freqs []uint32) error {
	if w.closed {
		return errors.New("index: AddTerm after Close")
	}
	if w.nTerms > 0 && term <= w.prevTerm {
		return fmt.Errorf("index: term %q added after %q: terms must be strictly increasing", term, w.prevTerm)
	}
	if len(docids) == 0 || len(docids) != len(freqs) {
		return fmt.Errorf("index: term %q: %d docids, %d freqs", term, len(docids), len(freqs))
	}
	if uint64(len(docids)) > math.MaxUint32 {
		return fmt.Errorf("index: term %q: list too long", term)
	}
	n := uint32(len(w.docLens))
	w.gaps, w.fm1 = w.gaps[:0], w.fm1[:0]
	prev := uint32(0)
	var cf uint64
	for i, d := range docids {
		if d >= n || (i > 0 && d <= prev) {
			return fmt.Errorf("index: term %q: docid %d out of order or range (documents: %d)", term, d, n)
		}
		if freqs[i] == 0 {
			return fmt.Errorf("index: term %q: zero frequency for docid %d", term, d)
		}
		w.gaps = append(w.gaps, d-prev)
		w.fm1 = append(w.fm1, freqs[i]-1)
		cf += uint64(freqs[i])
		prev = d
	}
	dc, fc := w.dc, w.fc
	if le, ok := dc.(codecplugins.ListEncoder); ok {
		dc = le.ForList(w.gaps)
	}
	if le, ok := fc.(codecplugins.ListEncoder); ok {
		fc = le.ForList(w.fm1)
	}
	idf := bm25.IDF(uint64(n), uint64(len(docids)))
	firstBlock := w.blocks
	var maxScore float32
	var enc []byte
	for start := 0; start < len(docids); start += w.bs {
		end := min(start+w.bs, len(docids))
		var blockMax float32
		for i := start; i < end; i++ {
			if s := w.opts.BM25.TermScore(idf, freqs[i], w.norms[docids[i]]); s > blockMax {
				blockMax = s
			}
		}
		maxScore = max(maxScore, blockMax)
		w.skipCols[0].putUint32(docids[end-1])
		w.skipCols[1].putUint32(math.Float32bits(blockMax))
		w.skipCols[2].putUint64(uint64(w.docs.size))
		w.skipCols[3].putUint64(uint64(w.freqs.size))
		enc = dc.AppendBlock(enc[:0], w.gaps[start:end])
		w.docs.Write(enc)
		enc = fc.AppendBlock(enc[:0], w.fm1[start:end])
		w.freqs.Write(enc)
		w.blocks++
	}
	if firstBlock > math.MaxUint32 {
		return fmt.Errorf("index: more than 2^32 blocks")
	}
	var rec [lexiconRecordSize]byte
	binary.LittleEndian.PutUint64(rec[0:], uint64(w.terms.size))
	binary.LittleEndian.PutUint64(rec[8:], cf)
	binary.LittleEndian.PutUint32(rec[16:], uint32(len(term)))
	binary.LittleEndian.PutUint32(rec[20:], uint32(len(docids)))
	binary.LittleEndian.PutUint32(rec[24:], math.Float32bits(maxScore))
	binary.LittleEndian.PutUint32(rec[28:], uint32(firstBlock))
	w.lexicon.Write(rec[:])
	io.WriteString(w.terms, term)
	w.prevTerm = term
	w.nTerms++
	w.postings += uint64(len(docids))
	return nil
}

// Close writes the skip table and meta.json, making the index valid.
func (w *Writer) Close() error {
	if w.closed {
		return errors.New("index: Close called twice")
	}
	w.closed = true
	// The offset columns get their end entries.
	w.skipCols[2].putUint64(uint64(w.docs.size))
	w.skipCols[3].putUint64(uint64(w.freqs.size))
	skips, err := createFile(w.dir, fileSkips)
	if err != nil {
		w.Abort()
		return err
	}
	for _, c := range w.skipCols {
		if err := c.copyTo(skips); err != nil {
			skips.abort()
			w.Abort()
			return fmt.Errorf("index: write %s: %w", fileSkips, err)
		}
	}
	for _, f := range []*fileWriter{w.docs, w.freqs, w.lexicon, w.terms, skips} {
		if w.files[f.name], err = f.commit(w.dir); err != nil {
			w.Abort()
			return err
		}
	}
	w.removeColumns()
	if err := syncDir(w.dir); err != nil {
		return fmt.Errorf("index: sync %s: %w", w.dir, err)
	}
	meta := Meta{
		Version:      FormatVersion,
		DocIDCodec:   w.dc.Name(),
		FreqCodec:    w.fc.Name(),
		BlockSize:    w.bs,
		Docs:         uint64(len(w.docLens)),
		Terms:        w.nTerms,
		Postings:     w.postings,
		Blocks:       w.blocks,
		Tokens:       w.tokens,
		AvgDocLength: float64(w.avgLen),
		Order:        w.opts.Order,
		K1:           w.opts.BM25.K1,
		B:            w.opts.BM25.B,
		Files:        w.files,
	}
	js, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	mf, err := createFile(w.dir, fileMeta)
	if err != nil {
		return err
	}
	mf.Write(append(js, '\n'))
	if _, err := mf.commit(w.dir); err != nil {
		return err
	}
	if err := syncDir(w.dir); err != nil {
		return fmt.Errorf("index: sync %s: %w", w.dir, err)
	}
	return nil
}

// Abort discards everything written; the directory holds no valid index.
func (w *Writer) Abort() {
	w.closed = true
	for _, f := range []*fileWriter{w.docs, w.freqs, w.lexicon, w.terms} {
		if f != nil {
			f.abort()
		}
	}
	w.removeColumns()
}

func (w *Writer) removeColumns() {
	for _, c := range w.skipCols {
		if c != nil {
			c.remove()
		}
	}
}

// columnFile is a scratch file holding one skip-table column until Close
// concatenates the columns into skips.bin.
type columnFile struct {
	f   *os.File
	buf *bufio.Writer
	tmp [8]byte
}

func newColumnFile(dir string) (*columnFile, error) {
	f, err := os.CreateTemp(dir, ".skipcol.tmp-*")
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	return &columnFile{f: f, buf: bufio.NewWriterSize(f, 1<<18)}, nil
}

func (c *columnFile) putUint32(v uint32) {
	binary.LittleEndian.PutUint32(c.tmp[:4], v)
	c.buf.Write(c.tmp[:4])
}

func (c *columnFile) putUint64(v uint64) {
	binary.LittleEndian.PutUint64(c.tmp[:], v)
	c.buf.Write(c.tmp[:])
}

func (c *columnFile) copyTo(w io.Writer) error {
	if err := c.buf.Flush(); err != nil {
		return err
	}
	if _, err := c.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, bufio.NewReaderSize(c.f, 1<<18))
	return err
}

func (c *columnFile) remove() {
	c.f.Close()
	os.Remove(c.f.Name())
}
