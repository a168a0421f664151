package index

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"sort"
	"unsafe"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index/bm25"
)

// Index is an open, memory-mapped index. It is safe for concurrent use;
// cursors are not (one per goroutine).
type Index struct {
	dir      string
	meta     Meta
	dc, fc   codecplugins.Codec
	maps     map[string][]byte
	lexicon  []byte
	terms    []byte
	docData  []byte
	freqData []byte
	lastDoc  []uint32
	blockMax []float32
	docOffs  []uint64
	freqOffs []uint64
	docLens  []uint32
	urls     []byte
	urlOffs  []uint64
	params   bm25.Params
	avgLen   float32
	norms    []float32
}

// Open maps the index in dir, checking its version, every file's size and
// checksum, and the consistency of its tables.
func Open(dir string) (*Index, error) {
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return nil, errors.New("index: this build reads indexes on little-endian machines only")
	}
	meta, err := ReadMeta(dir)
	if err != nil {
		return nil, err
	}
	ix := &Index{dir: dir, meta: meta, maps: map[string][]byte{}}
	if ix.dc, err = codecplugins.Lookup(ix.meta.DocIDCodec); err != nil {
		return nil, fmt.Errorf("index: %s: docid codec: %w", fileMeta, err)
	}
	if ix.fc, err = codecplugins.Lookup(ix.meta.FreqCodec); err != nil {
		return nil, fmt.Errorf("index: %s: freq codec: %w", fileMeta, err)
	}
	if ix.meta.BlockSize != ix.dc.BlockSize() || ix.fc.BlockSize() < ix.meta.BlockSize {
		return nil, corruptf(fileMeta, "block size %d does not fit codecs %s and %s", ix.meta.BlockSize, ix.dc.Name(), ix.fc.Name())
	}
	for _, name := range dataFiles {
		if err := ix.mapChecked(name); err != nil {
			ix.Close()
			return nil, err
		}
	}
	if err := ix.slice(); err != nil {
		ix.Close()
		return nil, err
	}
	if err := ix.verify(); err != nil {
		ix.Close()
		return nil, err
	}
	ix.params = bm25.Params{K1: ix.meta.K1, B: ix.meta.B}
	ix.avgLen = float32(ix.meta.AvgDocLength)
	ix.norms = ix.params.Norms(ix.docLens, ix.avgLen)
	return ix, nil
}

func (ix *Index) mapChecked(name string) error {
	fm, ok := ix.meta.Files[name]
	if !ok {
		return corruptf(fileMeta, "no entry for %s", name)
	}
	f, err := os.Open(filepath.Join(ix.dir, name))
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
	b, err := mapFile(f, st.Size())
	if err != nil {
		return fmt.Errorf("index: map %s: %w", name, err)
	}
	ix.maps[name] = b
	if sum := crc32.Checksum(b, castagnoli); sum != fm.CRC32 {
		return corruptf(name, "checksum %08x, meta.json says %08x", sum, fm.CRC32)
	}
	return nil
}

// slice carves the typed tables out of the mapped files.
func (ix *Index) slice() error {
	m := ix.meta
	n, blocks := m.Docs, m.Blocks
	// Each table's size is count*unit + extra. The counts come from
	// meta.json, which no checksum covers, so they are compared with the
	// sizes by division: a product could overflow to the right size.
	want := []struct {
		name               string
		count, unit, extra uint64
	}{
		{fileLexicon, m.Terms, lexiconRecordSize, 0},
		{fileSkips, blocks, 8 + 16, 16}, // last docid, block max, two offsets; one more offset each
		{fileDocLens, n, 4, 0},
		{fileURLOffs, n, 8, 8},
	}
	for _, w := range want {
		size := uint64(len(ix.maps[w.name]))
		if size < w.extra || (size-w.extra)%w.unit != 0 || (size-w.extra)/w.unit != w.count {
			return corruptf(w.name, "size %d does not fit %d terms, %d blocks, %d documents", size, m.Terms, blocks, n)
		}
	}
	ix.lexicon = ix.maps[fileLexicon]
	ix.terms = ix.maps[fileTerms]
	ix.docData = ix.maps[fileDocIDs]
	ix.freqData = ix.maps[fileFreqs]
	ix.urls = ix.maps[fileURLs]
	sk := ix.maps[fileSkips]
	ix.lastDoc = asUint32s(sk[:blocks*4])
	ix.blockMax = asFloat32s(sk[blocks*4 : blocks*8])
	ix.docOffs = asUint64s(sk[blocks*8 : blocks*8+(blocks+1)*8])
	ix.freqOffs = asUint64s(sk[blocks*8+(blocks+1)*8:])
	ix.docLens = asUint32s(ix.maps[fileDocLens])
	ix.urlOffs = asUint64s(ix.maps[fileURLOffs])
	return nil
}

// verify cross-checks the tables so that no later access can go out of
// bounds, whatever the files hold.
func (ix *Index) verify() error {
	m := ix.meta
	for i := 1; i < len(ix.docOffs); i++ {
		if ix.docOffs[i] < ix.docOffs[i-1] || ix.freqOffs[i] < ix.freqOffs[i-1] {
			return corruptf(fileSkips, "block offsets decrease at block %d", i)
		}
	}
	if ix.docOffs[0] != 0 || ix.freqOffs[0] != 0 ||
		ix.docOffs[m.Blocks] != uint64(len(ix.docData)) || ix.freqOffs[m.Blocks] != uint64(len(ix.freqData)) {
		return corruptf(fileSkips, "block offsets do not span %s and %s", fileDocIDs, fileFreqs)
	}
	for i := 1; i < len(ix.urlOffs); i++ {
		if ix.urlOffs[i] < ix.urlOffs[i-1] {
			return corruptf(fileURLOffs, "offsets decrease at document %d", i)
		}
	}
	if ix.urlOffs[0] != 0 || ix.urlOffs[m.Docs] != uint64(len(ix.urls)) {
		return corruptf(fileURLOffs, "offsets do not span %s", fileURLs)
	}
	var tokens uint64
	for _, l := range ix.docLens {
		tokens += uint64(l)
	}
	if tokens != m.Tokens {
		return corruptf(fileDocLens, "%d tokens, meta.json says %d", tokens, m.Tokens)
	}
	var postings, nextBlock uint64
	prev := ""
	for i := 0; i < int(m.Terms); i++ {
		r := ix.lexicon[i*lexiconRecordSize:]
		off := binary.LittleEndian.Uint64(r[0:])
		tlen := uint64(binary.LittleEndian.Uint32(r[16:]))
		df := uint64(binary.LittleEndian.Uint32(r[20:]))
		first := uint64(binary.LittleEndian.Uint32(r[28:]))
		if off > uint64(len(ix.terms)) || tlen > uint64(len(ix.terms))-off {
			return corruptf(fileLexicon, "term %d points outside %s", i, fileTerms)
		}
		term := string(ix.terms[off : off+tlen])
		if i > 0 && term <= prev {
			return corruptf(fileLexicon, "terms out of order at %d (%q after %q)", i, term, prev)
		}
		if df == 0 || df > m.Docs || first != nextBlock {
			return corruptf(fileLexicon, "term %q: df %d, first block %d, want block %d", term, df, first, nextBlock)
		}
		end := first + (df+uint64(m.BlockSize)-1)/uint64(m.BlockSize)
		if end > m.Blocks {
			return corruptf(fileLexicon, "term %q: blocks beyond the skip table", term)
		}
		for b := first; b < end; b++ {
			if uint64(ix.lastDoc[b]) >= m.Docs || (b > first && ix.lastDoc[b] <= ix.lastDoc[b-1]) {
				return corruptf(fileSkips, "term %q: block %d has last docid %d out of order or range", term, b, ix.lastDoc[b])
			}
		}
		nextBlock = end
		postings += df
		prev = term
	}
	if nextBlock != m.Blocks || postings != m.Postings {
		return corruptf(fileLexicon, "%d blocks and %d postings, meta.json says %d and %d", nextBlock, postings, m.Blocks, m.Postings)
	}
	return nil
}

// ReadMeta reads and checks an index's meta.json without opening the rest.
func ReadMeta(dir string) (Meta, error) {
	var m Meta
	raw, err := os.ReadFile(filepath.Join(dir, fileMeta))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return m, fmt.Errorf("index: %s has no %s (not an index, or an unfinished one): %w", dir, fileMeta, ErrCorrupt)
		}
		return m, fmt.Errorf("index: %w", err)
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, corruptf(fileMeta, "%v", err)
	}
	if m.Version != FormatVersion {
		return m, fmt.Errorf("index: %s: file is version %d, want %d: %w", fileMeta, m.Version, FormatVersion, ErrVersion)
	}
	return m, nil
}

// Bytes is the total size of the index's data files.
func (m Meta) Bytes() int64 {
	var n int64
	for _, f := range m.Files {
		n += f.Size
	}
	return n
}

// Close unmaps the index. Cursors must not be used afterwards.
func (ix *Index) Close() error {
	var first error
	for name, b := range ix.maps {
		if err := unmap(b); err != nil && first == nil {
			first = fmt.Errorf("index: unmap %s: %w", name, err)
		}
	}
	ix.maps = nil
	return first
}

// Dir is the directory the index was opened from.
func (ix *Index) Dir() string { return ix.dir }

// Meta returns the index's meta.json content.
func (ix *Index) Meta() Meta { return ix.meta }

// NumDocs is the number of documents.
func (ix *Index) NumDocs() int { return int(ix.meta.Docs) }

// NumTerms is the number of distinct terms.
func (ix *Index) NumTerms() int { return int(ix.meta.Terms) }

// BlockSize is the number of postings per full block.
func (ix *Index) BlockSize() int { return ix.meta.BlockSize }

// Codecs returns the docid and frequency codecs.
func (ix *Index) Codecs() (docids, freqs codecplugins.Codec) { return ix.dc, ix.fc }

// BM25 returns the scoring parameters the index was built with.
func (ix *Index) BM25() bm25.Params { return ix.params }

// AvgDocLen is the average document length, as BM25 uses it.
func (ix *Index) AvgDocLen() float32 { return ix.avgLen }

// Norms returns every document's BM25 length normalisation (read-only).
func (ix *Index) Norms() []float32 { return ix.norms }

// DocLen returns a document's length in tokens.
func (ix *Index) DocLen(docid uint32) uint32 { return ix.docLens[docid] }

// DocLens returns every document's length (read-only, mapped).
func (ix *Index) DocLens() []uint32 { return ix.docLens }

// URL returns a document's URL.
func (ix *Index) URL(docid uint32) string {
	return string(ix.urls[ix.urlOffs[docid]:ix.urlOffs[docid+1]])
}

// Term returns the i-th term of the sorted lexicon.
func (ix *Index) Term(i int) TermInfo {
	r := ix.lexicon[i*lexiconRecordSize:]
	off := binary.LittleEndian.Uint64(r[0:])
	tlen := uint64(binary.LittleEndian.Uint32(r[16:]))
	return TermInfo{
		ID:         i,
		Term:       string(ix.terms[off : off+tlen]),
		CF:         binary.LittleEndian.Uint64(r[8:]),
		DF:         binary.LittleEndian.Uint32(r[20:]),
		MaxScore:   math.Float32frombits(binary.LittleEndian.Uint32(r[24:])),
		FirstBlock: binary.LittleEndian.Uint32(r[28:]),
	}
}

// Lookup finds a term by binary search in the lexicon.
func (ix *Index) Lookup(term string) (TermInfo, bool) {
	n := int(ix.meta.Terms)
	i := sort.Search(n, func(i int) bool { return ix.termString(i) >= term })
	if i < n && ix.termString(i) == term {
		return ix.Term(i), true
	}
	return TermInfo{}, false
}

func (ix *Index) termString(i int) string {
	r := ix.lexicon[i*lexiconRecordSize:]
	off := binary.LittleEndian.Uint64(r[0:])
	tlen := uint64(binary.LittleEndian.Uint32(r[16:]))
	return unsafe.String(unsafe.SliceData(ix.terms[off:]), int(tlen))
}

// IDF is the term's BM25 inverse document frequency in this collection.
func (ix *Index) IDF(t TermInfo) float32 { return bm25.IDF(ix.meta.Docs, uint64(t.DF)) }

// SkipTable exposes the skip table's columns (read-only, mapped), for
// engines that work on whole blocks, such as the GPU back end.
type SkipTable struct {
	LastDocIDs  []uint32  // last docid of each block
	BlockMax    []float32 // largest BM25 term score of each block
	DocOffsets  []uint64  // B+1 byte offsets of the docid blocks
	FreqOffsets []uint64  // B+1 byte offsets of the frequency blocks
}

// Skips returns the skip table.
func (ix *Index) Skips() SkipTable {
	return SkipTable{ix.lastDoc, ix.blockMax, ix.docOffs, ix.freqOffs}
}

// Data returns the encoded docid and frequency files (read-only, mapped).
func (ix *Index) Data() (docids, freqs []byte) { return ix.docData, ix.freqData }

func asUint32s(b []byte) []uint32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func asFloat32s(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func asUint64s(b []byte) []uint64 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
}
