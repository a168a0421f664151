package index

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index/bm25"
)

// WriterOptions choose the codecs and record how the index was built.
type WriterOptions struct {
	DocIDCodec string      // registry name of the docid codec
	FreqCodec  string      // registry name of the frequency codec
	Order      string      // docid order, recorded in meta.json ("url", "crawl", "random", ...)
	BM25       bm25.Params // parameters of the stored score bounds
	Force      bool        // replace an index even with one of fewer than half its documents (ErrShrink)
	// TitleWeight records, in meta.json, the title weight the caller
	// already folded into the frequencies and lengths it gives (0: none).
	TitleWeight uint32
	// Positions writes positions.bin: every posting's token positions,
	// given by AddTermPositions, encoded with PositionsCodec (the docid
	// codec when empty).
	Positions      bool
	PositionsCodec string
	// Shard, when not nil, writes the index as a shard of a collection
	// (shard.go): its part in meta.json, and the collection's statistics,
	// which it scores under, in collection.bin.
	Shard *ShardSpec
}

// Writer lays out a new generation of an index directory. The document
// table is given up front (block max scores need every document's length);
// posting lists are then added one term at a time in increasing term
// order, and Close commits. Until then the directory's index, if any, is
// untouched and keeps opening.
type Writer struct {
	root      *Dir
	ownsRoot  bool   // NewWriter locked root: Close and Abort unlock it
	gen       string // the generation directory's name
	dir       string // its path
	opts      WriterOptions
	dc, fc    codecplugins.Codec
	bs        int
	docLens   []uint32
	norms     []float32
	avgLen    float32
	tokens    uint64
	docs      *fileWriter
	freqs     *fileWriter
	lexicon   *streamWriter
	optional  []*fileWriter // optional data files (createOptional)
	positions *fileWriter   // positions.bin, nil without positions
	pc        codecplugins.Codec
	posSizes  []uint64 // each block's encoded positions
	posVals   []uint32
	files     map[string]FileMeta
	prevTerm  string
	nTerms    uint64
	postings  uint64
	blocks    uint64
	gaps      []uint32
	fm1       []uint32
	skips     []skipEntry // the current term's blocks
	segments  []segment   // the lexicon's segments so far
	termBytes uint64      // the terms' bytes so far
	closed    bool
	committed bool // meta.json names the new generation
	// segmentOnly: Close makes the generation durable but commits
	// nothing; the caller names it in a commit (CommitSegments).
	segmentOnly bool
	meta        Meta     // the generation's meta.json value, once finished
	collDF      []uint32 // for a shard: each term's df in the collection
}

// skipEntry is one block's row of the skip table, as the writer gathers it.
type skipEntry struct {
	lastDoc             uint32
	blockMax            float32
	docBytes, freqBytes uint64
}

// NewWriter locks dir (LockDir) and starts a new generation of its index
// for the documents whose lengths and URLs are given; docid i has
// docLens[i] and urls[i]. Close commits it and unlocks dir; Abort
// discards it and unlocks dir.
func NewWriter(dir string, opts WriterOptions, docLens []uint32, urls []string) (*Writer, error) {
	d, err := LockDir(dir)
	if err != nil {
		return nil, err
	}
	w, err := d.NewWriter(opts, docLens, urls)
	if err != nil {
		d.Unlock()
		return nil, err
	}
	w.ownsRoot = true
	return w, nil
}

// NewWriter starts a new generation of d's index for the documents whose
// lengths and URLs are given; docid i has docLens[i] and urls[i]. It
// refuses with ErrShrink to replace an index with an empty one or one of
// fewer than half its documents unless opts.Force is set.
func (d *Dir) NewWriter(opts WriterOptions, docLens []uint32, urls []string) (*Writer, error) {
	return d.newWriter(opts, docLens, urls, false)
}

// NewSegmentWriter is NewWriter for a segment: Close writes the new
// generation and makes it durable but commits nothing (the old index
// stays); Segment then gives its meta.json value, for CommitSegments.
func (d *Dir) NewSegmentWriter(opts WriterOptions, docLens []uint32, urls []string) (*Writer, error) {
	return d.newWriter(opts, docLens, urls, true)
}

func (d *Dir) newWriter(opts WriterOptions, docLens []uint32, urls []string, segmentOnly bool) (*Writer, error) {
	if len(docLens) != len(urls) {
		return nil, fmt.Errorf("index: %d document lengths but %d URLs", len(docLens), len(urls))
	}
	if uint64(len(docLens)) >= uint64(NoMoreDocs) {
		return nil, fmt.Errorf("index: %d documents exceed the docid space", len(docLens))
	}
	for d, u := range urls {
		if len(u) > maxStringBytes {
			return nil, fmt.Errorf("index: document %d: URL of %d bytes: at most %d", d, len(u), maxStringBytes)
		}
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
	if old, err := ReadMeta(d.path); err == nil && !segmentOnly && !opts.Force && shrinks(old.Docs, uint64(len(docLens))) {
		return nil, fmt.Errorf("index: %s holds an index of %d documents and the new one has %d: %w",
			d.path, old.Docs, len(docLens), ErrShrink)
	}
	if opts.Shard != nil {
		var tokens uint64
		for _, l := range docLens {
			tokens += uint64(l)
		}
		if err := checkShardSpec(opts.Shard, len(docLens), tokens); err != nil {
			return nil, err
		}
	}
	gen, err := d.newGeneration()
	if err != nil {
		return nil, err
	}
	w := &Writer{root: d, gen: gen, dir: filepath.Join(d.path, gen), opts: opts, dc: dc, fc: fc, bs: bs,
		docLens: docLens, files: map[string]FileMeta{}, segmentOnly: segmentOnly}
	for _, l := range docLens {
		w.tokens += uint64(l)
	}
	w.avgLen = avgDocLen(w.tokens, len(docLens))
	w.norms = opts.BM25.Norms(docLens, w.avgLen)
	if err = w.writeDocTable(urls); err == nil {
		if w.docs, err = createFile(w.dir, fileDocIDs); err == nil {
			if w.freqs, err = createFile(w.dir, fileFreqs); err == nil {
				w.lexicon, err = createStream(w.dir, fileLexicon)
			}
		}
	}
	if err != nil {
		w.Abort()
		return nil, err
	}
	w.segments = []segment{{}}
	if opts.Positions {
		if err = w.startPositions(); err != nil {
			w.Abort()
			return nil, err
		}
	}
	return w, nil
}

// avgDocLen is the average document length BM25 uses: 1 when every
// document is empty (no term is ever scored then).
func avgDocLen(tokens uint64, docs int) float32 {
	if tokens == 0 {
		return 1
	}
	return float32(float64(tokens) / float64(docs))
}

// writeDocTable writes doclens.bin (uvarint lengths) and urls.bin
// (front-coded URLs).
func (w *Writer) writeDocTable(urls []string) error {
	lens, err := createStream(w.dir, fileDocLens)
	if err != nil {
		return err
	}
	for _, l := range w.docLens {
		lens.uvarint(uint64(l))
		lens.flush()
	}
	if w.files[fileDocLens], err = lens.finish(); err != nil {
		return err
	}
	u, err := createStream(w.dir, fileURLs)
	if err != nil {
		return err
	}
	prev := ""
	for _, s := range urls {
		u.frontCoded(prev, s)
		u.flush()
		prev = s
	}
	w.files[fileURLs], err = u.finish()
	return err
}

// AddTerm appends a term's posting list: strictly increasing docids below
// the document count, and their frequencies (each at least 1). Terms must
// come in strictly increasing byte order. A writer with positions takes
// AddTermPositions instead.
func (w *Writer) AddTerm(term string, docids, freqs []uint32) error {
	if w.positions != nil {
		return fmt.Errorf("index: term %q: the index has positions: AddTermPositions", term)
	}
	return w.addTerm(term, docids, freqs, nil)
}

// AddTermPositions is AddTerm for a writer with positions (opts.Positions):
// positions holds every posting's token positions, freqs[i] of them for
// posting i, strictly increasing and below its document's length, the
// postings' one after another.
func (w *Writer) AddTermPositions(term string, docids, freqs, positions []uint32) error {
	if w.positions == nil {
		return fmt.Errorf("index: term %q: positions given to a writer without positions", term)
	}
	if positions == nil {
		positions = []uint32{} // not nil: addTerm writes positions
	}
	return w.addTerm(term, docids, freqs, positions)
}

// addTerm appends a term, with its positions unless they are nil.
func (w *Writer) addTerm(term string, docids, freqs, positions []uint32) error {
	if w.closed {
		return errors.New("index: AddTerm after Close")
	}
	if w.nTerms > 0 && term <= w.prevTerm {
		return fmt.Errorf("index: term %q added after %q: terms must be strictly increasing", term, w.prevTerm)
	}
	if len(term) > maxStringBytes {
		return fmt.Errorf("index: term of %d bytes: at most %d", len(term), maxStringBytes)
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
	if positions != nil {
		if err := w.checkPositions(term, docids, freqs, positions); err != nil {
			return err
		}
	}
	if sh := w.opts.Shard; sh != nil {
		df := sh.DF(term)
		if df < uint64(len(docids)) || df-uint64(len(docids)) > sh.Info.CollectionDocs-uint64(n) {
			return fmt.Errorf("index: term %q: df %d in the collection of %d documents, %d in the shard of %d", term, df, sh.Info.CollectionDocs, len(docids), n)
		}
		w.collDF = append(w.collDF, uint32(df))
	}
	dc, fc := w.dc, w.fc
	if le, ok := dc.(codecplugins.ListEncoder); ok {
		dc = le.ForList(w.gaps)
	}
	if le, ok := fc.(codecplugins.ListEncoder); ok {
		fc = le.ForList(w.fm1)
	}
	if w.nTerms > 0 && w.nTerms%segmentTerms == 0 {
		w.startSegment()
	}
	idf := bm25.IDF(uint64(n), uint64(len(docids)))
	var maxScore float32
	var enc []byte
	w.skips = w.skips[:0]
	for start := 0; start < len(docids); start += w.bs {
		end := min(start+w.bs, len(docids))
		e := skipEntry{lastDoc: docids[end-1]}
		for i := start; i < end; i++ {
			e.blockMax = max(e.blockMax, w.opts.BM25.TermScore(idf, freqs[i], w.norms[docids[i]]))
		}
		maxScore = max(maxScore, e.blockMax)
		enc = dc.AppendBlock(enc[:0], w.gaps[start:end])
		w.docs.Write(enc)
		e.docBytes = uint64(len(enc))
		enc = fc.AppendBlock(enc[:0], w.fm1[start:end])
		w.freqs.Write(enc)
		e.freqBytes = uint64(len(enc))
		w.skips = append(w.skips, e)
		if positions != nil {
			positions = w.writePositions(freqs[start:end], positions)
		}
	}
	if w.blocks+uint64(len(w.skips)) > math.MaxUint32 {
		return fmt.Errorf("index: more than 2^32 blocks")
	}
	w.writeTerm(term, uint64(len(docids)), cf, maxScore)
	w.blocks += uint64(len(w.skips))
	w.prevTerm = term
	w.nTerms++
	w.postings += uint64(len(docids))
	return nil
}

// writeTerm appends the term's lexicon record: the term front-coded after
// the previous one, df, cf-df and the largest score (left out when df is 1:
// the reader computes it from the one posting, which cf and the skip row
// give), then one row per
// block: the last docid (less the previous block's), the encoded sizes of
// the docid and frequency blocks, and, when the list has more than one
// block, the block's largest score (a single block's is the term's).
func (w *Writer) writeTerm(term string, df, cf uint64, maxScore float32) {
	lx := w.lexicon
	after := w.prevTerm
	if w.nTerms%segmentTerms == 0 {
		after = "" // a segment's first term: its front coding starts afresh
	}
	lx.frontCoded(after, term)
	w.termBytes += uint64(len(term))
	lx.uvarint(df)
	lx.uvarint(cf - df)
	if df > 1 {
		lx.float32(maxScore)
	}
	prev := uint32(0)
	for _, e := range w.skips {
		lx.uvarint(uint64(e.lastDoc - prev))
		lx.uvarint(e.docBytes)
		lx.uvarint(e.freqBytes)
		if len(w.skips) > 1 {
			lx.float32(e.blockMax)
		}
		prev = e.lastDoc
	}
	lx.flush()
}

// startSegment starts another lexicon segment: a new deflate stream whose
// front coding starts afresh. (The first starts with the writer.)
func (w *Writer) startSegment() {
	w.lexicon.restart()
	w.segments = append(w.segments, w.segmentStart())
}

// segmentStart describes a segment that would start now.
func (w *Writer) segmentStart() segment {
	return segment{
		term: w.nTerms, block: w.blocks, termBytes: w.termBytes,
		docOff: uint64(w.docs.size), freqOff: uint64(w.freqs.size), offset: uint64(w.lexicon.fw.size),
	}
}

// createOptional creates one of optionalFiles in the new generation. The
// caller writes it whole before Close, which finishes it as it does the
// other data files (fsync, size and checksum in meta.json); Abort
// discards it.
func (w *Writer) createOptional(name string) (*fileWriter, error) {
	if !slices.Contains(optionalFiles, name) {
		return nil, fmt.Errorf("index: %s is not an optional file of an index", name)
	}
	if slices.ContainsFunc(w.optional, func(f *fileWriter) bool { return f.name == name }) {
		return nil, fmt.Errorf("index: %s created twice", name)
	}
	f, err := createFile(w.dir, name)
	if err != nil {
		return nil, err
	}
	w.optional = append(w.optional, f)
	return f, nil
}

// Close finishes the data files, makes them durable and commits the new
// generation (Dir.commit); then it removes the old one, and unlocks the
// directory if NewWriter locked it.
func (w *Writer) Close() error {
	if w.closed {
		return errors.New("index: Close called twice")
	}
	err := w.finish()
	if err != nil {
		w.Abort()
		return err
	}
	w.closed = true
	if !w.segmentOnly {
		w.root.removeOld(w.meta)
	}
	if w.ownsRoot {
		w.root.Unlock()
	}
	return nil
}

// finish writes the data files' ends, fsyncs them and the directories,
// and commits.
func (w *Writer) finish() error {
	var err error
	if w.files[fileDocIDs], err = w.docs.finish(); err != nil {
		return err
	}
	if w.files[fileFreqs], err = w.freqs.finish(); err != nil {
		return err
	}
	// The lexicon ends with its segment table, past the last stream.
	w.lexicon.end()
	w.segments = append(w.segments, w.segmentStart())
	bounds := boundsParams{docs: uint64(len(w.docLens)), k1: w.opts.BM25.K1, b: w.opts.BM25.B, avgLen: w.avgLen}
	w.lexicon.fw.Write(appendSegments(nil, w.segments, bounds))
	if w.files[fileLexicon], err = w.lexicon.fw.finish(); err != nil {
		return err
	}
	if w.positions != nil {
		w.positions.Write(appendPositionsTable(nil, w.posSizes, uint64(w.positions.size), w.pc.Name()))
	}
	if w.opts.Shard != nil {
		if err := w.writeCollection(); err != nil {
			return err
		}
	}
	for _, f := range w.optional {
		if w.files[f.name], err = f.finish(); err != nil {
			return err
		}
	}
	for _, dir := range []string{w.dir, w.root.path} {
		if err := syncDir(dir); err != nil {
			return fmt.Errorf("index: sync %s: %w", dir, err)
		}
	}
	w.meta = Meta{
		Version:      FormatVersion,
		Generation:   w.gen,
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
		TitleWeight:  w.opts.TitleWeight,
		Files:        w.files,
	}
	if sh := w.opts.Shard; sh != nil {
		info := sh.Info
		w.meta.Shard = &info
	}
	if w.segmentOnly {
		return nil
	}
	if err := w.root.commit(w.meta); err != nil {
		return err
	}
	w.committed = true
	if err := syncDir(w.root.path); err != nil {
		return fmt.Errorf("index: sync %s: %w", w.root.path, err)
	}
	return nil
}

// Segment is the meta.json value of the generation a segment writer
// closed (NewSegmentWriter).
func (w *Writer) Segment() Meta { return w.meta }

// Abort discards the new generation, unless a failing Close committed it
// already; the directory's index, if any, is as it was. It unlocks the directory if NewWriter locked it.
func (w *Writer) Abort() {
	if w.closed {
		return
	}
	w.closed = true
	for _, f := range append([]*fileWriter{w.docs, w.freqs}, w.optional...) {
		if f != nil {
			f.abort()
		}
	}
	if w.lexicon != nil {
		w.lexicon.abort()
	}
	if !w.committed {
		os.RemoveAll(w.dir)
	}
	if w.ownsRoot {
		w.root.Unlock()
	}
}
