package index

import (
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index/bm25"
	"github.com/gpusearch/gpusearch/internal/hugemem"
	"github.com/gpusearch/gpusearch/internal/prefetch"
)

// Index is an open index, mapped or in memory (Memory). It is safe for
// concurrent use; cursors are not (one per goroutine).
type Index struct {
	dir      string
	meta     Meta
	dc, fc   codecplugins.Codec
	maps     map[string][]byte
	lexicon  []lexEntry
	terms    []byte    // every term, concatenated in order
	byTerm   termTable // Lookup's hash of the lexicon
	docData  []byte
	freqData []byte
	lastDoc  []uint32
	blockMax []float32
	offs     []blockOffs // B+1: where each block's docids and frequencies start
	skipOnce sync.Once   // builds skips, Skips' table, on its first call
	skips    SkipTable
	docLens  []uint32
	urls     []byte   // every URL, concatenated in docid order
	urlOffs  []uint64 // N+1 offsets into urls
	params   bm25.Params
	avgLen   float32
	norms    []float32
	titles   *blockFile // the document store (store.go), nil if absent
	texts    *blockFile // whole texts, as format 4 stored them
	words    *wordFile  // word-coded texts (textwords.go)
	// positions.bin (positions.go), nil if absent
	positions *positionsFile
	sources   *sourceTable // sources.bin (sources.go), nil if absent
	seg       *segmented   // a segmented index's segments (segmented.go), nil if one
	// coll, for a segment of a segmented index or a shard, is the whole
	// whose statistics it scores under (collection.go); nil elsewhere.
	coll    scoringStats
	deleted []uint64       // for a segment: its deleted docids' bits, nil if none
	part    int            // for a segment: its place in the whole's segments
	mem     Memory         // Mapped or HugePages (memory.go)
	free    []func() error // releases the tables HugePages moved out of the Go heap
}

// Open maps the index that dir's commit point, meta.json, names,
// checking its version, every file's size and checksum, and the
// consistency of its tables and of meta.json's values with them.
func Open(dir string) (*Index, error) { return OpenWith(dir, Mapped) }

// OpenWith is Open keeping the postings and the tables queries probe as
// mem says.
func OpenWith(dir string, mem Memory) (*Index, error) {
	for tries := 1; ; tries++ {
		meta, err := ReadMeta(dir)
		if err != nil {
			return nil, err
		}
		ix, err := open(dir, meta, mem.resolve(meta))
		if err == nil {
			if err := ix.pinTables(); err != nil {
				ix.Close()
				return nil, err
			}
			return ix, nil
		}
		// A writer that commits meanwhile removes the generation being
		// read: open the new one.
		if now, merr := ReadMeta(dir); tries == 3 || merr != nil || now.Generation == meta.Generation {
			return nil, err
		}
	}
}

// open maps the generation meta names, or the segments, keeping them as
// mem (Mapped or HugePages) says.
func open(dir string, meta Meta, mem Memory) (*Index, error) {
	if len(meta.Segments) > 0 {
		return openSegmented(dir, meta, mem)
	}
	var err error
	ix := &Index{dir: dir, meta: meta, maps: map[string][]byte{}, mem: mem}
	if ix.dc, err = codecplugins.Lookup(ix.meta.DocIDCodec); err != nil {
		return nil, fmt.Errorf("index: %s: docid codec: %w", fileMeta, err)
	}
	if ix.fc, err = codecplugins.Lookup(ix.meta.FreqCodec); err != nil {
		return nil, fmt.Errorf("index: %s: freq codec: %w", fileMeta, err)
	}
	if ix.meta.BlockSize != ix.dc.BlockSize() || ix.fc.BlockSize() < ix.meta.BlockSize {
		return nil, corruptf(fileMeta, "block size %d does not fit codecs %s and %s", ix.meta.BlockSize, ix.dc.Name(), ix.fc.Name())
	}
	for _, name := range append(slices.Clone(dataFiles), optionalFiles...) {
		if _, ok := meta.Files[name]; !ok && slices.Contains(optionalFiles, name) {
			continue
		}
		if err := ix.mapChecked(name); err != nil {
			ix.Close()
			return nil, err
		}
	}
	ix.docData, ix.freqData = ix.maps[fileDocIDs], ix.maps[fileFreqs]
	ix.params = bm25.Params{K1: ix.meta.K1, B: ix.meta.B}
	if err := ix.readTables(); err != nil {
		ix.Close()
		return nil, err
	}
	if err := ix.openStore(); err != nil {
		ix.Close()
		return nil, err
	}
	if err := ix.readPositions(); err != nil {
		ix.Close()
		return nil, err
	}
	if err := ix.readSources(); err != nil {
		ix.Close()
		return nil, err
	}
	if err := ix.readCollection(); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// readTables inflates the lengths, the lexicon and the URLs from the
// mapped files into the in-memory tables. Each goroutine reads under
// Guard: a file that shrinks meanwhile (a copy over the index still
// running during a reload) fails the open instead of the process.
func (ix *Index) readTables() error {
	// The URLs inflate beside the lengths and the lexicon, which needs the
	// norms: a one-posting list's score is computed.
	urls := make(chan error, 1)
	go func() { urls <- ix.Guard(ix.readURLs) }()
	err := ix.Guard(func() error {
		if err := ix.readDocLens(); err != nil {
			return err
		}
		ix.norms = ix.params.Norms(ix.docLens, ix.avgLen)
		return ix.readLexicon()
	})
	if err == nil {
		ix.byTerm = newTermTable(len(ix.lexicon), ix.termString)
	}
	if uerr := <-urls; err == nil {
		err = uerr
	}
	return err
}

func (ix *Index) mapChecked(name string) error {
	fm, ok := ix.meta.Files[name]
	if !ok {
		return corruptf(fileMeta, "no entry for %s", name)
	}
	f, err := os.Open(filepath.Join(ix.dir, ix.meta.Generation, name))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return corruptf(name, "missing")
		}
		return fmt.Errorf("index: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	if st.Size() != fm.Size {
		return corruptf(name, "size %d, meta.json says %d (truncated or replaced)", st.Size(), fm.Size)
	}
	load, verb := mapFile, "map"
	if ix.inMemory(name) {
		load, verb = readFile, "read"
	}
	b, err := load(f, st.Size())
	if err != nil {
		return fmt.Errorf("index: %s %s: %w", verb, name, err)
	}
	ix.maps[name] = b
	return ix.verifyChecksum(name)
}

// verifyChecksum compares the mapped file name's CRC-32C with meta.json's,
// under Guard: the file may shrink while it is read.
func (ix *Index) verifyChecksum(name string) error {
	return ix.Guard(func() error {
		want := ix.meta.Files[name].CRC32
		if sum := crc32.Checksum(ix.maps[name], castagnoli); sum != want {
			return corruptf(name, "checksum %08x, meta.json says %08x", sum, want)
		}
		return nil
	})
}

// lexEntry is one term of the in-memory lexicon.
type lexEntry struct {
	termOff    uint64 // the term is terms[termOff:termOff+termLen]
	cf         uint64
	termLen    uint32
	df         uint32
	maxScore   float32
	firstBlock uint32
}

// initialCap bounds the capacity allocated ahead for a table of n rows:
// n comes from meta.json, which is checked against the data files only as
// they are read, so tables grow with the rows actually read.
func initialCap(n uint64) int { return int(min(n, 1<<20)) }

// readDocLens inflates doclens.bin: one uvarint length per document. Their
// number, their sum and the average length BM25 uses must be meta.json's
// docs, tokens and avg_doc_length.
func (ix *Index) readDocLens() error {
	m := ix.meta
	s := newStreamReader(fileDocLens, ix.maps[fileDocLens])
	ix.docLens = make([]uint32, 0, initialCap(m.Docs))
	var tokens uint64
	for uint64(len(ix.docLens)) <= m.Docs && s.more() {
		l := s.uint32()
		tokens += uint64(l)
		ix.docLens = append(ix.docLens, l)
	}
	if s.err != nil {
		return s.err
	}
	if n := uint64(len(ix.docLens)); n != m.Docs {
		have := fmt.Sprint(n)
		if n > m.Docs {
			have = "more"
		}
		return corruptf(fileMeta, "docs is %d, but %s holds %s document lengths", m.Docs, fileDocLens, have)
	}
	if tokens != m.Tokens {
		return corruptf(fileMeta, "tokens is %d, but the document lengths in %s add up to %d", m.Tokens, fileDocLens, tokens)
	}
	ix.avgLen = avgDocLen(tokens, len(ix.docLens))
	if float64(ix.avgLen) != m.AvgDocLength {
		return corruptf(fileMeta, "avg_doc_length is %v, but the document lengths in %s give %v", m.AvgDocLength, fileDocLens, ix.avgLen)
	}
	return nil
}

// readURLs inflates urls.bin: the documents' URLs, front-coded in docid
// order.
func (ix *Index) readURLs() error {
	s := newStreamReader(fileURLs, ix.maps[fileURLs])
	ix.urlOffs = make([]uint64, 1, initialCap(ix.meta.Docs+1))
	var prev []byte
	for d := uint64(0); d < ix.meta.Docs && s.err == nil; d++ {
		ix.urls, prev = s.frontCoded(ix.urls, prev)
		ix.urlOffs = append(ix.urlOffs, uint64(len(ix.urls)))
	}
	return s.end()
}

// readLexicon inflates lexicon.bin's segments, in parallel, into the
// lexicon and the skip table, checking every count and bound the cursors
// rely on: terms strictly increasing, df within the documents, each list's
// last docids strictly increasing below the document count, and block
// sizes that tile docids.bin and freqs.bin exactly. The tables are sized
// from meta.json's counts once the segment table, which the checksum
// covers, agrees with them.
func (ix *Index) readLexicon() error {
	m := ix.meta
	segs, bounds, body, err := parseSegments(ix.maps[fileLexicon])
	if err != nil {
		return corruptf(fileLexicon, "%v", err)
	}
	if err := ix.checkBounds(bounds); err != nil {
		return err
	}
	end := segs[len(segs)-1]
	if end.term != m.Terms || end.block != m.Blocks || end.docOff != uint64(len(ix.docData)) || end.freqOff != uint64(len(ix.freqData)) {
		return corruptf(fileLexicon, "segments end at term %d, block %d, offsets %d and %d; meta.json and the postings say %d, %d, %d and %d",
			end.term, end.block, end.docOff, end.freqOff, m.Terms, m.Blocks, len(ix.docData), len(ix.freqData))
	}
	if m.Blocks > math.MaxUint32 {
		return corruptf(fileLexicon, "%d blocks: at most 2^32", m.Blocks)
	}
	ix.lexicon = make([]lexEntry, m.Terms)
	ix.lastDoc, ix.blockMax = make([]uint32, m.Blocks), make([]float32, m.Blocks)
	ix.offs = make([]blockOffs, m.Blocks+1)
	n := len(segs) - 1
	terms := make([][]byte, n)
	postings := make([]uint64, n)
	errs := make([]error, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				errs[i] = ix.Guard(func() (err error) {
					terms[i], postings[i], err = ix.readSegment(segs[i], segs[i+1], body)
					return err
				})
			}
		})
	}
	wg.Wait()
	var total uint64
	for i := range n {
		if errs[i] != nil {
			return errs[i]
		}
		total += postings[i]
	}
	if total != m.Postings {
		return corruptf(fileLexicon, "%d postings, meta.json says %d", total, m.Postings)
	}
	ix.terms = slices.Concat(terms...)
	for i := 1; i < n; i++ {
		if t := segs[i].term; t > 0 && t < m.Terms && ix.termString(int(t)) <= ix.termString(int(t-1)) {
			return corruptf(fileLexicon, "terms out of order at %d (%q after %q)", t, ix.termString(int(t)), ix.termString(int(t-1)))
		}
	}
	return nil
}

// readSegment inflates one lexicon segment into its rows of the lexicon
// and the skip table, and returns its terms' bytes and its postings.
func (ix *Index) readSegment(seg, next segment, body []byte) ([]byte, uint64, error) {
	m := ix.meta
	s := newStreamReader(fileLexicon, body[seg.offset:next.offset])
	singleIDF := bm25.IDF(m.Docs, 1)
	var terms, prev []byte
	var postings uint64
	block, doc, freq := seg.block, seg.docOff, seg.freqOff
	for i := seg.term; i < next.term && s.err == nil; i++ {
		off := uint64(len(terms))
		var term []byte
		terms, term = s.frontCoded(terms, prev)
		df, cfExtra := s.uvarint(), s.uvarint()
		var maxScore float32
		if df > 1 {
			maxScore = s.float32()
		}
		if s.err != nil {
			break
		}
		if i > seg.term && string(term) <= string(prev) {
			s.failf("terms out of order at %d (%q after %q)", i, term, prev)
			break
		}
		if df == 0 || df > m.Docs || cfExtra > math.MaxUint64-df || (df == 1 && cfExtra >= math.MaxUint32) {
			s.failf("term %q: df %d, collection frequency %d+df", term, df, cfExtra)
			break
		}
		blocks := (df + uint64(m.BlockSize) - 1) / uint64(m.BlockSize)
		if blocks > next.block-block {
			s.failf("term %q: blocks beyond its segment's", term)
			break
		}
		ix.lexicon[i] = lexEntry{
			termOff: seg.termBytes + off, cf: df + cfExtra, termLen: uint32(len(term)), df: uint32(df),
			maxScore: maxScore, firstBlock: uint32(block),
		}
		doc, freq = ix.readSkipRows(s, term, block, blocks, maxScore, doc, freq)
		if df == 1 && s.err == nil {
			e := &ix.lexicon[i]
			e.maxScore = ix.params.TermScore(singleIDF, uint32(e.cf), ix.norms[ix.lastDoc[block]])
			ix.blockMax[block] = e.maxScore
		}
		block += blocks
		postings += df
		prev = term
	}
	if err := s.end(); err != nil {
		return nil, 0, err
	}
	if block != next.block || doc != next.docOff || freq != next.freqOff || seg.termBytes+uint64(len(terms)) != next.termBytes {
		return nil, 0, corruptf(fileLexicon, "segment of terms %d..%d ends at block %d, offsets %d and %d, %d term bytes; the segment table says %d, %d, %d and %d",
			seg.term, next.term, block, doc, freq, seg.termBytes+uint64(len(terms)), next.block, next.docOff, next.freqOff, next.termBytes)
	}
	return terms, postings, nil
}

// readSkipRows fills a term's rows of the skip table, from block first on,
// and returns the byte offsets after its blocks: last docids strictly
// increasing below the document count, block sizes within docids.bin and
// freqs.bin, block maxima (a single block's is maxScore).
func (ix *Index) readSkipRows(s *streamReader, term []byte, first, blocks uint64, maxScore float32, doc, freq uint64) (uint64, uint64) {
	docs, docEnd, freqEnd := ix.meta.Docs, uint64(len(ix.docData)), uint64(len(ix.freqData))
	last := uint64(0)
	for b := uint64(0); b < blocks && s.err == nil; b++ {
		delta, docBytes, freqBytes := s.uvarint(), s.uvarint(), s.uvarint()
		bmax := maxScore
		if blocks > 1 {
			bmax = s.float32()
		}
		switch {
		case s.err != nil:
		case (b > 0 && delta == 0) || delta >= docs-last:
			s.failf("term %q: block %d has last docid %d+%d, out of order or range", term, b, last, delta)
		case docBytes > docEnd-doc || freqBytes > freqEnd-freq:
			s.failf("term %q: block %d reaches past %s or %s", term, b, fileDocIDs, fileFreqs)
		default:
			last += delta
			doc, freq = doc+docBytes, freq+freqBytes
			ix.lastDoc[first+b] = uint32(last)
			ix.blockMax[first+b] = bmax
			ix.offs[first+b+1] = blockOffs{doc, freq}
		}
	}
	return doc, freq
}

// checkBounds compares the values the lexicon's score bounds were
// computed with to those the index scores with: bounds computed with
// others would let the pruning engines skip documents that belong in the
// top k.
func (ix *Index) checkBounds(p boundsParams) error {
	m := ix.meta
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }
	switch {
	case p.docs != m.Docs:
		return corruptf(fileMeta, "docs is %d, but the score bounds in %s were computed for %d documents", m.Docs, fileLexicon, p.docs)
	case !same(p.k1, m.K1):
		return corruptf(fileMeta, "k1 is %v, but the score bounds in %s were computed with k1 %v", m.K1, fileLexicon, p.k1)
	case !same(p.b, m.B):
		return corruptf(fileMeta, "b is %v, but the score bounds in %s were computed with b %v", m.B, fileLexicon, p.b)
	case !same(p.avgLen, ix.avgLen):
		return corruptf(fileMeta, "avg_doc_length is %v, but the score bounds in %s were computed with %v", m.AvgDocLength, fileLexicon, p.avgLen)
	}
	return nil
}

// Bytes is the total size of the index's data files (of a segmented
// index: its segments' and deletions files).
func (m Meta) Bytes() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	for _, s := range m.Segments {
		n += s.Meta.Bytes()
		if s.Deletions != nil {
			n += s.Deletions.Size
		}
	}
	return n
}

// Close unmaps the index. Cursors must not be used afterwards.
func (ix *Index) Close() error {
	var first error
	if ix.seg != nil {
		for _, p := range ix.seg.parts {
			if err := p.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	for name, b := range ix.maps {
		release, verb := unmap, "unmap"
		if ix.inMemory(name) {
			release, verb = hugemem.Free[byte], "free"
		}
		if err := release(b); err != nil && first == nil {
			first = fmt.Errorf("index: %s %s: %w", verb, name, err)
		}
	}
	ix.maps = nil
	for _, free := range ix.free {
		if err := free(); err != nil && first == nil {
			first = fmt.Errorf("index: %w", err)
		}
	}
	ix.free = nil
	return first
}

// Dir is the directory the index was opened from.
func (ix *Index) Dir() string { return ix.dir }

// Meta returns the index's meta.json content.
func (ix *Index) Meta() Meta { return ix.meta }

// NumDocs is the number of documents.
func (ix *Index) NumDocs() int { return int(ix.meta.Docs) }

// NumTerms is the number of distinct terms.
func (ix *Index) NumTerms() int { return len(ix.lexicon) } // a segmented index's: none

// BlockSize is the number of postings per full block.
func (ix *Index) BlockSize() int { return ix.meta.BlockSize }

// Codecs returns the docid and frequency codecs.
func (ix *Index) Codecs() (docids, freqs codecplugins.Codec) { return ix.dc, ix.fc }

// BM25 returns the scoring parameters the index was built with.
func (ix *Index) BM25() bm25.Params { return ix.params }

// AvgDocLen is the average document length, as BM25 uses it.
func (ix *Index) AvgDocLen() float32 {
	if ix.coll != nil {
		return ix.coll.avgDocLen()
	}
	return ix.avgLen
}

// Norms returns every document's BM25 length normalisation (read-only).
func (ix *Index) Norms() []float32 { return ix.norms }

// DocLen returns a document's length in tokens.
func (ix *Index) DocLen(docid uint32) uint32 { return ix.docLens[docid] }

// DocLens returns every document's length (read-only, mapped).
func (ix *Index) DocLens() []uint32 { return ix.docLens }

// URL returns a document's URL.
func (ix *Index) URL(docid uint32) string {
	if ix.seg != nil {
		p, d := ix.Locate(docid)
		return p.URL(d)
	}
	return string(ix.urls[ix.urlOffs[docid]:ix.urlOffs[docid+1]])
}

// Term returns the i-th term of the sorted lexicon.
func (ix *Index) Term(i int) TermInfo { return ix.termInfo(i, strings.Clone(ix.termString(i))) }

// termInfo is the i-th term's TermInfo, its text given; in a segment or
// a shard, with its bound under the whole's statistics.
func (ix *Index) termInfo(i int, term string) TermInfo {
	t := ix.rawInfo(i, term)
	if ix.coll != nil {
		t.idf, t.scale = ix.collStats(t)
		t.MaxScore = scaleUp(t.MaxScore, t.scale)
	}
	return t
}

// rawInfo is the i-th term's TermInfo as the lexicon holds it.
func (ix *Index) rawInfo(i int, term string) TermInfo {
	e := &ix.lexicon[i]
	return TermInfo{ID: i, Term: term, CF: e.cf, DF: e.df, MaxScore: e.maxScore, FirstBlock: e.firstBlock}
}

// Lookup finds a term by hashing (termTable).
func (ix *Index) Lookup(term string) (TermInfo, bool) {
	if s, ok := ix.coll.(*segmented); ok {
		// Resolved once in every segment (segmented.lookup).
		st := s.lookup(term)
		if st == nil || !st.has[ix.part] {
			return TermInfo{}, false
		}
		return st.infos[ix.part], true
	}
	i, ok := ix.byTerm.find(term, ix.termString)
	if !ok {
		return TermInfo{}, false
	}
	return ix.termInfo(i, term), true // term equals the lexicon's: no copy
}

// lookupBatch is how many terms LookupAll looks up side by side.
const lookupBatch = 8

// LookupAll is Lookup for each of terms, in order: it calls found(i, t)
// for each terms[i] the index has, t its TermInfo. It reads what Lookup
// reads, a few terms at a time, each step's cache lines for all of them
// asked for (prefetched) before any is used: a query's lookups then wait
// on memory about three times, not three times a term (its hash slot,
// its lexicon entry, its bytes), and the first rows of its skip table
// and block offsets, which its cursor reads first, are on their way.
func (ix *Index) LookupAll(terms []string, found func(i int, t TermInfo)) {
	if _, ok := ix.coll.(*segmented); ok || len(ix.byTerm.slots) == 0 {
		for i, term := range terms {
			if t, ok := ix.Lookup(term); ok {
				found(i, t)
			}
		}
		return
	}
	tt := &ix.byTerm
	for start := 0; start < len(terms); start += lookupBatch {
		batch := terms[start:min(start+lookupBatch, len(terms))]
		var hs [lookupBatch]uint64
		for i, term := range batch {
			hs[i] = tt.hash(term)
			prefetch.T0(unsafe.Pointer(tt.slot(hs[i])))
		}
		// The lexicon entry the first slot names, when its tag matches:
		// most often the term's (else findHashed probes on).
		var ords [lookupBatch]int
		for i := range batch {
			o, ok := tagged(*tt.slot(hs[i]), hs[i])
			if ords[i] = -1; ok {
				ords[i] = o
				prefetch.T0(unsafe.Pointer(&ix.lexicon[o]))
			}
		}
		for i := range batch {
			if o := ords[i]; o >= 0 {
				e := &ix.lexicon[o]
				prefetch.T0(unsafe.Pointer(unsafe.SliceData(ix.terms[e.termOff:])))
				if b := int(e.firstBlock); b < len(ix.lastDoc) {
					prefetch.T0(unsafe.Pointer(&ix.lastDoc[b]))
					prefetch.T0(unsafe.Pointer(&ix.offs[b]))
				}
			}
		}
		for i, term := range batch {
			o, ok := ords[i], false
			if o >= 0 && ix.termString(o) == term {
				ok = true
			} else {
				o, ok = tt.findHashed(hs[i], term, ix.termString)
			}
			if ok {
				found(start+i, ix.termInfo(o, term))
			}
		}
	}
}

// DocFreq is the term's document frequency (the postings in its list), and
// whether the index has the term: Lookup's DF without the rest of its
// TermInfo, for callers that price many queries.
func (ix *Index) DocFreq(term string) (uint32, bool) {
	i, ok := ix.byTerm.find(term, ix.termString)
	if !ok {
		return 0, false
	}
	return ix.lexicon[i].df, true
}

func (ix *Index) termString(i int) string {
	e := &ix.lexicon[i]
	return unsafe.String(unsafe.SliceData(ix.terms[e.termOff:]), int(e.termLen))
}

// IDF is the term's BM25 inverse document frequency in this collection.
// In a segment of a segmented index it is the collection's: over the live
// documents of all segments; in a shard, the sharded collection's.
func (ix *Index) IDF(t TermInfo) float32 {
	if ix.coll != nil {
		if t.idf == 0 {
			t.idf, _ = ix.collStats(t)
		}
		return t.idf
	}
	return bm25.IDF(ix.meta.Docs, uint64(t.DF))
}

// blockOffs is where a block's docids and frequencies start in their
// files. The cursors read both offsets of a block and of the next, side
// by side in one array: one cache line where two columns took two. A
// probe into a block of a long list (MaxScore's non-essential lists, AND's
// longer lists) misses on every line it touches: this saved 2-5% a query
// on the RFCs and their passages.
type blockOffs struct{ doc, freq uint64 }

// SkipTable exposes the skip table's columns (read-only), for engines
// that work on whole blocks, such as the GPU back end.
type SkipTable struct {
	LastDocIDs  []uint32  // last docid of each block
	BlockMax    []float32 // largest BM25 term score of each block
	DocOffsets  []uint64  // B+1 byte offsets of the docid blocks
	FreqOffsets []uint64  // B+1 byte offsets of the frequency blocks
}

// Skips returns the skip table. Its offset columns are built on the first
// call, from the pairs the cursors read.
func (ix *Index) Skips() SkipTable {
	ix.skipOnce.Do(func() {
		doc, freq := make([]uint64, len(ix.offs)), make([]uint64, len(ix.offs))
		for i, o := range ix.offs {
			doc[i], freq[i] = o.doc, o.freq
		}
		ix.skips = SkipTable{ix.lastDoc, ix.blockMax, doc, freq}
	})
	return ix.skips
}

// Data returns the encoded docid and frequency files (read-only).
func (ix *Index) Data() (docids, freqs []byte) { return ix.docData, ix.freqData }
