package index

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// The stored text, textwords.bin, is word-coded: each document is the
// analyzer's token sequence, numbered exactly as positions number it,
// interleaved with the gaps between the tokens. A token and the gap after
// it are one symbol where the pair is met foldMin times or more (a
// surface, the bytes the analyzer cut, from a surface lexicon, and a gap
// from a gap lexicon), else a symbol of the surface alone followed by the
// gap's own code: a rank in the gap lexicon, or a literal (a gap met
// once or longer than maxGapWord: any bytes, UTF-8 or not). Symbols
// are numbered by frequency and written in an (s,c)-dense code (s byte
// values end a code, the others continue it; the writer picks s), so
// that the commonest take one byte. A checkpoint every checkpointTokens
// tokens records where that token's code lies, so that a snippet decodes
// the few dozen tokens around its window and skips the rest, and a table
// from each term to the ranks of its surfaces says which tokens are a
// query's terms without scanning or stemming the text.
// The file is
//
//	stream     per document, in docid order: the gap before its first
//	           token, then per token its symbol's code, followed by the
//	           gap's code where the symbol has none; a gap code is
//	           uvarint(0), uvarint(length) and the bytes, or uvarint(gap
//	           rank + 1); the gap after the last token is the text's tail
//	lexicons   one zstd frame of five sections, held decoded in memory:
//	  surfaces   per surface, by rank: its length (a byte), its bytes
//	  gaps       per gap, by rank: its length (a byte), its bytes
//	  symbols    per symbol, by rank, uvarint(surface rank); then per
//	             symbol uvarint(its gap: 0 coded apart, 1 a space, g+2
//	             gap g)
//	  terms      per term, ascending: uvarint(bytes shared with the
//	             previous term, 0 at every termBlock-th), uvarint(the
//	             rest's length), the rest, uvarint(surfaces), their ranks
//	             ascending as deltas
//	  term index per block of termBlock terms: uvarint(its byte offset in
//	             terms, less the previous block's)
//	docs       per document: uvarint(code bytes), uvarint(tokens), then per
//	           checkpoint (every checkpointTokens-th token but the first)
//	           uvarint(its code's offset less the previous checkpoint's)
//	trailer    the sizes of the stream, of the lexicons' frame and of the
//	           docs, and the five lexicon sections' decoded sizes (uint64
//	           each), the numbers of surfaces, gaps, symbols, terms and
//	           documents and the code's s (uint32 each), little-endian,
//	           then the magic "gswords1"
//
// Open checks the tables, decodes the lexicons and holds their offsets,
// the documents' offsets and the checkpoints in memory; a token's code is
// checked as it is decoded.
//
// Why words rather than compressed bytes: the zstd pieces this replaces
// (1 KiB each, a sampled dictionary) cost a snippet 5-8 us a piece to
// decode and as much again to scan and stem, for 40-60 us a hit on the
// RFCs; a snippet's window is about 50 symbols, decoded in a microsecond
// or two. Symbols of a token and its gap, and the dense code, are for
// size: rust-doc's text, code and punctuation, has a gap other than a
// space after half its tokens; with a token's code and a gap's apart its
// store took 24.7 MB against the pieces' 19.3, and store and positions
// outgrew Lucene's stored fields and positions (36.7 against 32.8 MB);
// as symbols, 20.0. The lexicons are compressed (zstd's best level) since
// they are read once, at Open.

// fileTextWords is the word-coded text store's file name.
const fileTextWords = "textwords.bin"

// fileTextPieces is the text store of builds before the word-coded one:
// an index holding it must be rebuilt.
const fileTextPieces = "textpieces.bin"

const (
	wordsMagic = "gswords1"
	// wordsTrailer is the trailer's size: eight uint64 sizes, six
	// uint32 counts and the magic.
	wordsTrailer = 8*8 + 6*4 + len(wordsMagic)
	// maxLexiconBytes bounds the lexicons' decoded size, so that a
	// damaged trailer cannot ask for a huge allocation.
	maxLexiconBytes = 4 << 30
	// checkpointTokens is how many tokens lie between checkpoints: a
	// window skips at most this many before its first token.
	checkpointTokens = 128
	// A token and the gap after it make a symbol where the pair is met
	// foldMin times or more.
	foldMin = 4
	// termBlock is how many terms of the term table share one entry of
	// its index.
	termBlock = 32
	// maxGapWord is the longest gap kept in the gap lexicon; longer ones
	// are literals, so that hostile text cannot fill the writer's memory
	// with gaps.
	maxGapWord = 64
	// maxSurface bounds a surface's length: the analyzer cuts no longer
	// token.
	maxSurface = 255
)

// StoredToken is one token of a text given to the store: text[Start:End]
// is the word the analyzer cut, Term its term. Tokens are in order and do
// not overlap, and count as positions count them.
type StoredToken struct {
	Start, End uint32
	Term       string
}

// wordWriter gathers the word-coded store: the documents coded with
// provisional ids (in order of first sight) in a scratch file, and the
// lexicons with their counts; finish ranks the lexicons by frequency and
// codes the documents again with the ranks.
type wordWriter struct {
	scratch  *os.File
	buf      *bufio.Writer
	surfIDs  map[string]uint32
	surfaces []lexWord // by provisional id
	gapIDs   map[string]uint32
	gaps     []lexWord         // by provisional id
	docs     []uint32          // per document, its tokens
	pairs    map[uint64]uint64 // surface id<<32 | gap id (litGap: a literal) -> tokens
	rec      []byte
	err      error
}

// litGap is the provisional gap id of a literal.
const litGap = math.MaxUint32

// lexWord is a surface or gap of the writer's lexicons.
type lexWord struct {
	text, term string // term: a surface's
	count      uint64
}

func newWordWriter(dir string) (*wordWriter, error) {
	f, err := os.CreateTemp(dir, ".store-"+fileTextWords+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	return &wordWriter{scratch: f, buf: bufio.NewWriterSize(f, 1<<20),
		surfIDs: map[string]uint32{}, gapIDs: map[string]uint32{}, pairs: map[uint64]uint64{}}, nil
}

// add stores the next document's text, as tokens.
func (p *wordWriter) add(text []byte, tokens []StoredToken) error {
	if p.err != nil {
		return p.err
	}
	d := len(p.docs)
	switch {
	case d == int(NoMoreDocs):
		return fmt.Errorf("index: %s: more documents than docids", fileTextWords)
	case len(text) > maxBlockBytes:
		return fmt.Errorf("index: %s: document %d of %d bytes is too large to store", fileTextWords, d, len(text))
	}
	at := uint32(0)
	for i, t := range tokens {
		if t.Start < at || t.End <= t.Start || int(t.End) > len(text) || t.End-t.Start > maxSurface {
			return fmt.Errorf("index: %s: document %d: token %d at [%d, %d) out of order or out of its %d bytes",
				fileTextWords, d, i, t.Start, t.End, len(text))
		}
		at = t.End
	}
	rec := binary.AppendUvarint(p.rec[:0], uint64(len(tokens)))
	at = uint32(len(text)) // the gap before the first token: all of a text without tokens
	if len(tokens) > 0 {
		at = tokens[0].Start
	}
	rec, _ = p.gap(rec, text[:at])
	for i, t := range tokens {
		sid := p.surface(text[t.Start:t.End], t.Term)
		rec = binary.AppendUvarint(rec, uint64(sid))
		next := uint32(len(text))
		if i+1 < len(tokens) {
			next = tokens[i+1].Start
		}
		var g uint32
		rec, g = p.gap(rec, text[t.End:next])
		p.pairs[uint64(sid)<<32|uint64(g)]++
	}
	p.docs = append(p.docs, uint32(len(tokens)))
	p.rec = rec
	if _, err := p.buf.Write(binary.AppendUvarint(nil, uint64(len(rec)))); err != nil {
		p.err = err
	} else if _, err := p.buf.Write(rec); err != nil {
		p.err = err
	}
	if p.err != nil {
		p.err = fmt.Errorf("index: %s: %w", fileTextWords, p.err)
	}
	return p.err
}

// surface returns the provisional id of surface s of term t, counted.
func (p *wordWriter) surface(s []byte, t string) uint32 {
	id, ok := p.surfIDs[string(s)]
	if !ok {
		id = uint32(len(p.surfaces))
		k := string(s)
		p.surfIDs[k] = id
		p.surfaces = append(p.surfaces, lexWord{text: k, term: strings.Clone(t)})
	}
	p.surfaces[id].count++
	return id
}

// gap appends gap g in provisional form: uvarint(id+1) for a lexicon
// gap, or uvarint(0), its length and its bytes for a literal; and
// returns its id (litGap for a literal).
func (p *wordWriter) gap(rec, g []byte) ([]byte, uint32) {
	if len(g) > maxGapWord {
		rec = binary.AppendUvarint(append(rec, 0), uint64(len(g)))
		return append(rec, g...), litGap
	}
	id, ok := p.gapIDs[string(g)]
	if !ok {
		id = uint32(len(p.gaps))
		k := string(g)
		p.gapIDs[k] = id
		p.gaps = append(p.gaps, lexWord{text: k})
	}
	p.gaps[id].count++
	return binary.AppendUvarint(rec, uint64(id)+1), id
}

// rank orders a lexicon by count, most frequent first (ties: first seen
// first), and returns each provisional id's rank; keep says which words
// are ranked at all (the others get rank math.MaxUint32).
func rank(words []lexWord, keep func(lexWord) bool) (order []uint32, ranks []uint32) {
	for id, w := range words {
		if keep(w) {
			order = append(order, uint32(id))
		}
	}
	slices.SortStableFunc(order, func(a, b uint32) int { return cmp.Compare(words[b].count, words[a].count) })
	ranks = make([]uint32, len(words))
	for i := range ranks {
		ranks[i] = math.MaxUint32
	}
	for r, id := range order {
		ranks[id] = uint32(r)
	}
	return order, ranks
}

// finish writes the store to w.
func (p *wordWriter) finish(w io.Writer) error {
	if p.err != nil {
		return p.err
	}
	if err := p.buf.Flush(); err != nil {
		return fmt.Errorf("index: %s: %w", fileTextWords, err)
	}
	surfOrder, surfRank := rank(p.surfaces, func(lexWord) bool { return true })
	// A gap met once is cheaper as a literal than as a lexicon entry
	// and a code.
	gapOrder, gapRank := rank(p.gaps, func(g lexWord) bool { return g.count > 1 })
	space, hasSpace := p.gapIDs[" "]
	if !hasSpace {
		space = litGap - 1 // no gap has this id: none is a space
	}
	// Each token's symbol: its surface and, for a space or a common gap
	// after it foldMin times or more, the gap (field 1 or g+2), else none
	// (0): a symbol's entry costs about what its gap's codes would.
	gapField := func(sid, g uint32) uint32 {
		switch {
		case p.pairs[uint64(sid)<<32|uint64(g)] < foldMin:
		case g == space:
			return 1
		case g != litGap && gapRank[g] != math.MaxUint32:
			return gapRank[g] + 2
		}
		return 0
	}
	symCount := map[uint64]uint64{}
	for k, n := range p.pairs {
		symCount[uint64(surfRank[k>>32])<<32|uint64(gapField(uint32(k>>32), uint32(k)))] += n
	}
	syms := make([]uint64, 0, len(symCount))
	for k := range symCount {
		syms = append(syms, k)
	}
	slices.SortFunc(syms, func(a, b uint64) int {
		if c := cmp.Compare(symCount[b], symCount[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	symRank := make(map[uint64]uint32, len(syms))
	counts := make([]uint64, len(syms))
	for r, k := range syms {
		symRank[k], counts[r] = uint32(r), symCount[k]
	}
	stoppers := bestStoppers(counts)
	out := bufio.NewWriterSize(w, 1<<20)
	var streamBytes uint64
	var docs []byte
	in := bufio.NewReaderSize(p.scratch, 1<<20)
	if _, err := p.scratch.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("index: %s: %w", fileTextWords, err)
	}
	var code []byte
	var rec []byte
	for d, n := range p.docs {
		size, err := binary.ReadUvarint(in)
		if err == nil {
			rec = slices.Grow(rec[:0], int(size))[:size]
			_, err = io.ReadFull(in, rec)
		}
		if err != nil {
			return fmt.Errorf("index: %s: scratch of document %d: %w", fileTextWords, d, err)
		}
		code = code[:0]
		var cps []uint64
		_, k := binary.Uvarint(rec) // the tokens, n
		rec = rec[k:]
		// The gap before the first token, then per token its surface and
		// the gap after it.
		nextGap := func() (id uint32, lit []byte) {
			v, k := binary.Uvarint(rec)
			rec = rec[k:]
			if v > 0 {
				return uint32(v - 1), nil
			}
			l, k := binary.Uvarint(rec)
			lit, rec = rec[k:k+int(l)], rec[k+int(l):]
			return litGap, lit
		}
		putGap := func(id uint32, lit []byte) {
			if id != litGap && gapRank[id] != math.MaxUint32 {
				code = binary.AppendUvarint(code, uint64(gapRank[id])+1)
				return
			}
			if id != litGap {
				lit = []byte(p.gaps[id].text)
			}
			code = binary.AppendUvarint(append(code, 0), uint64(len(lit)))
			code = append(code, lit...)
		}
		putGap(nextGap())
		for i := range n {
			if i > 0 && i%checkpointTokens == 0 {
				cps = append(cps, uint64(len(code)))
			}
			s, k := binary.Uvarint(rec)
			rec = rec[k:]
			id, lit := nextGap()
			f := gapField(uint32(s), id)
			code = appendDense(code, uint64(symRank[uint64(surfRank[s])<<32|uint64(f)]), stoppers)
			if f == 0 {
				putGap(id, lit)
			}
		}
		if _, err := out.Write(code); err != nil {
			return fmt.Errorf("index: %s: %w", fileTextWords, err)
		}
		streamBytes += uint64(len(code))
		docs = binary.AppendUvarint(docs, uint64(len(code)))
		docs = binary.AppendUvarint(docs, uint64(n))
		prev := uint64(0)
		for _, c := range cps {
			docs = binary.AppendUvarint(docs, c-prev)
			prev = c
		}
	}
	var lex []byte
	for _, id := range surfOrder {
		lex = append(lex, byte(len(p.surfaces[id].text)))
		lex = append(lex, p.surfaces[id].text...)
	}
	raw := [5]uint64{uint64(len(lex))}
	for _, id := range gapOrder {
		lex = append(lex, byte(len(p.gaps[id].text)))
		lex = append(lex, p.gaps[id].text...)
	}
	raw[1] = uint64(len(lex)) - raw[0]
	for _, k := range syms { // a column of surfaces, then one of gaps: they pack better apart
		lex = binary.AppendUvarint(lex, k>>32)
	}
	for _, k := range syms {
		lex = binary.AppendUvarint(lex, uint64(uint32(k)))
	}
	raw[2] = uint64(len(lex)) - raw[0] - raw[1]
	terms, index, nterms := p.termTable(surfRank)
	raw[3], raw[4] = uint64(len(terms)), uint64(len(index))
	lex = append(append(lex, terms...), index...)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return fmt.Errorf("index: %s: %w", fileTextWords, err)
	}
	frame := enc.EncodeAll(lex, nil)
	out.Write(frame)
	out.Write(docs)
	tr := binary.LittleEndian.AppendUint64(nil, streamBytes)
	tr = binary.LittleEndian.AppendUint64(tr, uint64(len(frame)))
	tr = binary.LittleEndian.AppendUint64(tr, uint64(len(docs)))
	for _, r := range raw {
		tr = binary.LittleEndian.AppendUint64(tr, r)
	}
	for _, c := range []int{len(surfOrder), len(gapOrder), len(syms), nterms, len(p.docs), stoppers} {
		tr = binary.LittleEndian.AppendUint32(tr, uint32(c))
	}
	out.Write(append(tr, wordsMagic...))
	if err := out.Flush(); err != nil {
		return fmt.Errorf("index: %s: %w", fileTextWords, err)
	}
	return nil
}

// The (s,c)-dense code's s lies in [minStoppers, maxStoppers]: with c =
// 256-s at least 16, eight bytes code over 2^32 symbols, and a reader
// takes at most eight.
const (
	minStoppers = 64
	maxStoppers = 240
)

// bestStoppers returns the s of the (s,c)-dense code that takes the
// fewest bytes for symbols of counts (descending).
func bestStoppers(counts []uint64) int {
	best, bestS := uint64(math.MaxUint64), maxStoppers
	for s := minStoppers; s <= maxStoppers; s++ {
		c := uint64(256 - s)
		var bytes, limit, width uint64 = 0, uint64(s), 1
		span := uint64(s)
		for r, n := range counts {
			for uint64(r) >= limit {
				span *= c
				limit += span
				width++
			}
			bytes += n * width
		}
		if bytes < best {
			best, bestS = bytes, s
		}
	}
	return bestS
}

// appendDense appends symbol r in the (s,c)-dense code: bytes below s end
// a code, the others continue it.
func appendDense(dst []byte, r uint64, s int) []byte {
	c := uint64(256 - s)
	base, span, width := uint64(0), uint64(s), 1
	for r >= base+span {
		base += span
		span *= c
		width++
	}
	x := r - base
	var buf [10]byte
	buf[width-1] = byte(x % uint64(s))
	x /= uint64(s)
	for i := width - 2; i >= 0; i-- {
		buf[i] = byte(uint64(s) + x%c)
		x /= c
	}
	return append(dst, buf[:width]...)
}

// readDense returns the symbol whose (s,c)-dense code starts at
// code[at:] and the offset after it; math.MaxUint64 where none decodes.
func readDense(code []byte, at uint32, s byte) (uint64, uint32) {
	if at < uint32(len(code)) && code[at] < s {
		return uint64(code[at]), at + 1
	}
	c := uint64(256) - uint64(s)
	var x, base, span uint64 = 0, 0, uint64(s)
	for i := 0; i < 8 && at < uint32(len(code)); i++ {
		b := code[at]
		at++
		if b < s {
			return base + x*uint64(s) + uint64(b), at
		}
		x = x*c + uint64(b-s)
		base += span
		span *= c
	}
	return math.MaxUint64, at
}

// termTable returns the term table, its index and its number of terms:
// each term with the ranks of the surfaces it was cut from.
func (p *wordWriter) termTable(surfRank []uint32) (table, index []byte, n int) {
	byTerm := make([]uint32, len(p.surfaces))
	for i := range byTerm {
		byTerm[i] = uint32(i)
	}
	slices.SortFunc(byTerm, func(a, b uint32) int {
		if c := strings.Compare(p.surfaces[a].term, p.surfaces[b].term); c != 0 {
			return c
		}
		return cmp.Compare(surfRank[a], surfRank[b])
	})
	prev, lastBlock := "", 0
	for i := 0; i < len(byTerm); {
		t := p.surfaces[byTerm[i]].term
		j := i
		for j < len(byTerm) && p.surfaces[byTerm[j]].term == t {
			j++
		}
		shared := 0
		if n%termBlock == 0 {
			index = binary.AppendUvarint(index, uint64(len(table)-lastBlock))
			lastBlock = len(table)
		} else {
			for shared < len(prev) && shared < len(t) && prev[shared] == t[shared] {
				shared++
			}
		}
		table = binary.AppendUvarint(table, uint64(shared))
		table = binary.AppendUvarint(table, uint64(len(t)-shared))
		table = append(table, t[shared:]...)
		table = binary.AppendUvarint(table, uint64(j-i))
		r := uint32(0)
		for _, id := range byTerm[i:j] {
			table = binary.AppendUvarint(table, uint64(surfRank[id]-r))
			r = surfRank[id]
		}
		prev, i = t, j
		n++
	}
	return table, index, n
}

func (p *wordWriter) close() {
	p.scratch.Close()
	os.Remove(p.scratch.Name())
}

// wordFile is a mapped word-coded text store, its tables read.
type wordFile struct {
	stream   []byte
	surfaces lexTable
	gaps     lexTable
	syms     []symbol // per symbol, what decode needs of it, in one place
	apart    []uint64 // bit v: symbol v's gap is coded apart (a skip reads these bits, not syms)
	stoppers byte     // the dense code's s
	terms    []byte   // the term table
	blocks   []uint64 // per block of termBlock terms, its offset in terms
	firsts   []string // per block, its first term: searched in memory
	keys     []uint64 // per block, its first term's first 8 bytes (termKey): searched first
	nterms   int
	docOffs  []uint64 // per document and one more, where its code starts in stream
	docToks  []uint32 // per document, its tokens
	cpFirst  []uint32 // per document and one more, its first checkpoint in cps
	cps      []uint32 // checkpoints: code offsets in their document's code
}

// symbol is a symbol as decode reads it, in 16 bytes: word 0 holds its
// surface's rank (bits 0-31), its gap (bits 32-55; 0: coded apart, 1: a
// space, g+2: gap g) and its surface's size (bits 56-63); word 1 the
// surface's bytes when they are at most symInline, else their offset in
// the surfaces' data. Most tokens' surfaces are that short, and then a
// token costs one load, not a second dependent one of its bytes.
type symbol [2]uint64

// symInline is the longest surface a symbol holds itself; maxSymGap
// bounds the gaps' numbers (24 bits).
const (
	symInline = 8
	// decodeBatch is how many tokens decode reads ahead: about a third
	// of a snippet's window.
	decodeBatch = 16
	maxSymGap   = 1<<24 - 1
)

func (s *symbol) rank() uint32 { return uint32(s[0]) }
func (s *symbol) gap() uint32  { return uint32(s[0]>>32) & maxSymGap }
func (s *symbol) size() int    { return int(s[0] >> 56) }

// lexTable is a lexicon section: entry i is data[start[i]:start[i+1]-1]
// (each entry's length byte precedes its bytes).
type lexTable struct {
	data  []byte
	start []uint32
}

// parseWordFile reads and checks a word-coded text store of docs
// documents: its trailer, sections that tile the file, lexicons that
// decode to their sizes and whose entries fit, a term index within the
// table and documents whose codes and checkpoints lie within the stream,
// in order.
func parseWordFile(data []byte, docs uint64) (*wordFile, error) {
	name := fileTextWords
	if len(data) < wordsTrailer || string(data[len(data)-len(wordsMagic):]) != wordsMagic {
		return nil, corruptf(name, "no tables (magic %q missing)", wordsMagic)
	}
	tr := data[len(data)-wordsTrailer:]
	var sizes [3]uint64 // stream, lexicons' frame, docs
	var raw [5]uint64   // surfaces, gaps, symbols, terms, term index
	total, rawTotal := uint64(0), uint64(0)
	for i := range sizes {
		sizes[i] = binary.LittleEndian.Uint64(tr[8*i:])
		if sizes[i] > uint64(len(data)) {
			return nil, corruptf(name, "section %d of %d bytes in a file of %d", i, sizes[i], len(data))
		}
		total += sizes[i]
	}
	for i := range raw {
		raw[i] = binary.LittleEndian.Uint64(tr[24+8*i:])
		if raw[i] > maxLexiconBytes {
			return nil, corruptf(name, "lexicon section %d of %d bytes", i, raw[i])
		}
		rawTotal += raw[i]
	}
	count := func(i int) uint64 { return uint64(binary.LittleEndian.Uint32(tr[64+4*i:])) }
	nSurf, nGap, nSym, nTerm, nDocs, stoppers := count(0), count(1), count(2), count(3), count(4), count(5)
	switch {
	case total != uint64(len(data)-wordsTrailer):
		return nil, corruptf(name, "sections of %d bytes in %d", total, len(data)-wordsTrailer)
	case nDocs != docs:
		return nil, corruptf(name, "holds %d documents, meta.json says %d", nDocs, docs)
	case nSurf > raw[0] || nGap > raw[1] || nSym > raw[2]/2 || nTerm > raw[3] || nDocs > sizes[2]/2+1 || nTerm > nSurf ||
		rawTotal > maxLexiconBytes || stoppers < minStoppers || stoppers > maxStoppers:
		return nil, corruptf(name, "%d surfaces, %d gaps, %d symbols, %d terms and %d documents (s %d) in sections of %v and %v bytes",
			nSurf, nGap, nSym, nTerm, nDocs, stoppers, sizes, raw)
	}
	f := &wordFile{nterms: int(nTerm), stoppers: byte(stoppers)}
	f.stream = data[:sizes[0]]
	dec, err := storeDecoder()
	if err != nil {
		return nil, fmt.Errorf("index: %s: %w", name, err)
	}
	lex, err := dec.DecodeAll(data[sizes[0]:sizes[0]+sizes[1]], make([]byte, 0, rawTotal+lexPad))
	if err != nil || uint64(len(lex)) != rawTotal {
		return nil, corruptf(name, "the lexicons do not decode to their %d bytes: %v", rawTotal, err)
	}
	padded := lex[:rawTotal+lexPad] // decode copies short words lexPad bytes at a time
	at := uint64(0)
	section := func(i int) []byte {
		s := lex[at : at+raw[i]]
		at += raw[i]
		return s
	}
	if f.surfaces, err = parseLex(section(0), padded[0:], nSurf, "surface", maxSurface); err != nil {
		return nil, err
	}
	if f.gaps, err = parseLex(section(1), padded[raw[0]:], nGap, "gap", maxGapWord); err != nil {
		return nil, err
	}
	if nGap+1 > maxSymGap {
		return nil, corruptf(name, "%d gaps: more than this build reads (%d)", nGap, maxSymGap-1)
	}
	syms := section(2)
	f.syms = make([]symbol, nSym)
	f.apart = make([]uint64, (nSym+63)/64)
	for col := range 2 {
		for i := range f.syms {
			v, k := binary.Uvarint(syms)
			if k <= 0 || col == 0 && v >= nSurf || col == 1 && v > nGap+1 {
				return nil, corruptf(name, "symbol %d: out of range", i)
			}
			syms = syms[k:]
			sy := &f.syms[i]
			if col == 1 {
				sy[0] |= v << 32
				if v == 0 {
					f.apart[i/64] |= 1 << (i % 64)
				}
				continue
			}
			st, end := f.surfaces.start[v], f.surfaces.start[v+1]-1
			sy[0], sy[1] = v|uint64(end-st)<<56, uint64(st)
			if end-st <= symInline {
				var b [symInline]byte
				copy(b[:], f.surfaces.data[st:end])
				sy[1] = binary.LittleEndian.Uint64(b[:])
			}
		}
	}
	if len(syms) != 0 {
		return nil, corruptf(name, "%d symbols do not fill their section", nSym)
	}
	f.terms = section(3)
	index := section(4)
	nBlocks := (nTerm + termBlock - 1) / termBlock
	f.blocks = make([]uint64, 0, nBlocks)
	off := uint64(0)
	for range nBlocks {
		v, k := binary.Uvarint(index)
		if k <= 0 || v > uint64(len(f.terms))-off || len(f.blocks) > 0 && v == 0 {
			return nil, corruptf(name, "term block %d: offset out of range", len(f.blocks))
		}
		index = index[k:]
		off += v
		f.blocks = append(f.blocks, off)
	}
	if len(index) != 0 || nBlocks > 0 && f.blocks[0] != 0 {
		return nil, corruptf(name, "a term index of %d blocks does not fill its section", nBlocks)
	}
	f.firsts, f.keys = make([]string, nBlocks), make([]uint64, 0, nBlocks)
	for i, at := range f.blocks {
		first, _, err := f.entry(at)
		if err != nil {
			return nil, err
		}
		f.keys = append(f.keys, termKey(string(first)))
		if f.firsts[i] = string(first); i > 0 && f.firsts[i] <= f.firsts[i-1] {
			return nil, corruptf(name, "term block %d: its first term %q out of order", i, first)
		}
	}
	t := data[sizes[0]+sizes[1] : total]
	next := func() uint64 {
		v, k := binary.Uvarint(t)
		if k <= 0 {
			t = nil
			return math.MaxUint64
		}
		t = t[k:]
		return v
	}
	f.docOffs, f.docToks, f.cpFirst = make([]uint64, docs+1), make([]uint32, docs), make([]uint32, docs+1)
	for d := range docs {
		size, toks := next(), next()
		if size > uint64(len(f.stream))-f.docOffs[d] || toks > size || size > maxBlockBytes+2*toks+16 {
			return nil, corruptf(name, "document %d: %d bytes of code and %d tokens: out of range", d, size, toks)
		}
		f.docOffs[d+1], f.docToks[d] = f.docOffs[d]+size, uint32(toks)
		prev := uint64(0)
		for i := uint64(1); i*checkpointTokens < toks; i++ {
			c := prev + next()
			if c <= prev || c >= size {
				return nil, corruptf(name, "document %d: checkpoint %d out of order", d, i)
			}
			f.cps = append(f.cps, uint32(c))
			prev = c
		}
		f.cpFirst[d+1] = uint32(len(f.cps))
	}
	if len(t) != 0 || f.docOffs[docs] != uint64(len(f.stream)) {
		return nil, corruptf(name, "the documents' tables do not fill their sections")
	}
	return f, nil
}

// lexPad is how many bytes decode copies at once for a short word: the
// lexicons' buffer runs that far past their end.
const lexPad = 16

// parseLex reads a lexicon section s of n entries of at most maxLen
// bytes each; padded is s and the lexicons' buffer after it.
func parseLex(s, padded []byte, n uint64, what string, maxLen int) (lexTable, error) {
	if uint64(len(s)) >= math.MaxUint32 {
		return lexTable{}, corruptf(fileTextWords, "%d bytes of %ss", len(s), what)
	}
	lx := lexTable{data: padded, start: make([]uint32, n+1)}
	at := uint64(0)
	for i := range n {
		if at >= uint64(len(s)) || int(s[at]) > maxLen || uint64(s[at]) >= uint64(len(s))-at {
			return lexTable{}, corruptf(fileTextWords, "%s %d: out of range", what, i)
		}
		lx.start[i] = uint32(at) + 1
		at += 1 + uint64(s[at])
	}
	if at != uint64(len(s)) {
		return lexTable{}, corruptf(fileTextWords, "%d %ss do not fill their section", n, what)
	}
	lx.start[n] = uint32(at) + 1
	return lx, nil
}

// appendEntry appends entry i, which must exist, to text: an entry of
// at most lexPad bytes as one lexPad-byte move when text has room.
func (lx *lexTable) appendEntry(text []byte, i uint64) []byte {
	s, e := lx.start[i], lx.start[i+1]-1
	n := len(text)
	if e-s <= lexPad && cap(text)-n >= lexPad {
		*(*[lexPad]byte)(text[n : n+lexPad]) = *(*[lexPad]byte)(lx.data[s : s+lexPad])
		return text[:n+int(e-s)]
	}
	return append(text, lx.data[s:e]...)
}

// termBlockOf returns the last term block whose first term is at most
// term, or -1. It searches the blocks' keys, one array, and compares
// whole terms only among blocks whose key is term's: the strings lie
// apart in memory, each a cache miss.
func (f *wordFile) termBlockOf(term string) int {
	k := termKey(term)
	lo, _ := slices.BinarySearch(f.keys, k) // the first key at least k
	hi := lo + sort.Search(len(f.keys)-lo, func(i int) bool { return f.keys[lo+i] > k })
	// Keys follow their terms' order: blocks before lo start below
	// term, those from hi on above it.
	return lo + sort.Search(hi-lo, func(i int) bool { return f.firsts[lo+i] > term }) - 1
}

// termKey is a term's first 8 bytes, big-endian, zeros past its end: keys
// are in their terms' order, equal ones undecided.
func termKey(t string) uint64 {
	var b [8]byte
	copy(b[:], t)
	return binary.BigEndian.Uint64(b[:])
}

// surfaceRanks returns the ranks of the surfaces term was cut from,
// ascending, appended to dst; none for a term the store lacks.
func (f *wordFile) surfaceRanks(dst []uint32, term string) ([]uint32, error) {
	// The last block whose first term is at most term.
	b := f.termBlockOf(term)
	if b < 0 {
		return dst, nil
	}
	at := f.blocks[b]
	var cur []byte // the term at at, rebuilt from the shared prefixes
	for i := b * termBlock; i < min((b+1)*termBlock, f.nterms); i++ {
		shared, rest, err := f.shared(at)
		if err != nil {
			return dst, err
		}
		if i == b*termBlock {
			shared = 0
		}
		if shared > len(cur) {
			return dst, corruptf(fileTextWords, "term at byte %d shares %d bytes of %d", at, shared, len(cur))
		}
		suffix, rest, err := f.entry(at)
		if err != nil {
			return dst, err
		}
		cur = append(cur[:shared], suffix...)
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)) {
			return dst, corruptf(fileTextWords, "term %q: its surfaces out of range", cur)
		}
		rest = rest[k:]
		switch {
		case string(cur) == term: // compared in place, not converted
			r := uint64(0)
			for range n {
				v, k := binary.Uvarint(rest)
				if k <= 0 || r+v >= uint64(len(f.surfaces.start)-1) {
					return dst, corruptf(fileTextWords, "term %q: surface out of range", cur)
				}
				rest, r = rest[k:], r+v
				dst = append(dst, uint32(r))
			}
			return dst, nil
		case string(cur) > term:
			return dst, nil
		}
		for range n {
			_, k := binary.Uvarint(rest)
			if k <= 0 {
				return dst, corruptf(fileTextWords, "term %q: surface out of range", cur)
			}
			rest = rest[k:]
		}
		at = uint64(len(f.terms) - len(rest))
	}
	return dst, nil
}

// shared returns how many bytes the term whose entry starts at offset at
// of the term table shares with the term before it.
func (f *wordFile) shared(at uint64) (int, []byte, error) {
	v, k := binary.Uvarint(f.terms[at:])
	if k <= 0 || v > maxSurface {
		return 0, nil, corruptf(fileTextWords, "term at byte %d: out of range", at)
	}
	return int(v), f.terms[at+uint64(k):], nil
}

// entry returns the bytes the term whose entry starts at offset at of
// the term table adds to the prefix it shares, and the entry's rest.
func (f *wordFile) entry(at uint64) ([]byte, []byte, error) {
	_, e, err := f.shared(at)
	if err != nil {
		return nil, nil, err
	}
	l, k := binary.Uvarint(e)
	if k <= 0 || l > uint64(len(e)-k) {
		return nil, nil, corruptf(fileTextWords, "term at byte %d: out of range", at)
	}
	e = e[k:]
	return e[:l], e[l:], nil
}

// TextWindow is a stretch of a document's stored text, decoded with its
// tokens: whole tokens and the gaps after them.
type TextWindow struct {
	Text   []byte
	Tokens []WindowToken // the tokens in Text, in order
	// First is the ordinal of Tokens[0] in the document (as positions
	// count), AtStart and AtEnd whether Text begins and ends the
	// document's text.
	First          uint32
	AtStart, AtEnd bool
}

// WindowToken is a token of a TextWindow: Text[Start:End], and the index
// of its term among those TextTerms was made for, or -1.
type WindowToken struct {
	Start, End uint32
	Term       int32
	rank       uint32 // its surface's
}

// rankSet maps the surface ranks of a query's terms in one store to the
// terms' indexes.
type rankSet struct {
	// mask has bit r%maskBits set for each rank r: most tokens stop
	// there. A query's terms have tens of surfaces (cases, inflections);
	// with 256 bits, 31% of an RFC window's tokens went on to search
	// them, with 4,096 14% (12.5% are the query's terms).
	mask  [maskBits / 64]uint64
	ranks []rankTerm // term by term, in the query's order
}

// rankTerm is a surface's rank and its term's index.
type rankTerm struct {
	rank uint32
	term int32
}

// maskBits is the size of a rankSet's mask: 512 bytes, held in the
// first-level cache while a window decodes.
const maskBits = 4096

// term returns the index of the first term with the surface of rank r,
// or -1.
func (s *rankSet) term(r uint32) int32 {
	if s == nil || s.mask[r/64%(maskBits/64)]&(1<<(r%64)) == 0 {
		return -1
	}
	// Few tokens get here, nearly all of them the query's terms: a
	// search of the ranks in the query's order costs less than sorting
	// them for each request did (7 us a request on the RFCs).
	for _, x := range s.ranks {
		if x.rank == r {
			return x.term
		}
	}
	return -1
}

// newRankSet resolves terms to f's surfaces.
func (f *wordFile) newRankSet(terms []string) (*rankSet, error) {
	s := &rankSet{}
	var buf []uint32
	var err error
	for i, t := range terms {
		if buf, err = f.surfaceRanks(buf[:0], t); err != nil {
			return nil, err
		}
		for _, r := range buf {
			s.mask[r/64%(maskBits/64)] |= 1 << (r % 64)
			s.ranks = append(s.ranks, rankTerm{r, int32(i)})
		}
	}
	return s, nil
}

// TextTerms says, for TextWindow, which stored tokens are which of a
// query's terms: per store, the ranks of the surfaces the terms were cut
// from. It is read-only once made.
type TextTerms struct {
	sets map[*wordFile]*rankSet
}

// TextTerms resolves terms for TextWindow. The index must store its text
// word-coded (WordText).
func (ix *Index) TextTerms(terms []string) (*TextTerms, error) {
	tt := &TextTerms{sets: map[*wordFile]*rankSet{}}
	parts := []*Index{ix}
	if ix.seg != nil {
		parts = ix.seg.parts
	}
	err := ix.Guard(func() error {
		for _, p := range parts {
			if p.words == nil {
				return fmt.Errorf("index: the text is not stored word-coded")
			}
			s, err := p.words.newRankSet(terms)
			if err != nil {
				return err
			}
			tt.sets[p.words] = s
		}
		return nil
	})
	return tt, err
}

// WordText reports whether the index stores its text word-coded, so that
// TextWindow decodes only part of a document.
func (ix *Index) WordText() bool {
	if ix.seg != nil {
		return ix.seg.parts[0].WordText()
	}
	return ix.words != nil
}

// TextWindow decodes into w the part of document docid's stored text
// from at least before bytes before the start of its token from to at
// least after bytes after that start and past its token to (token
// ordinals, as positions count them; clamped to the document's), with
// its tokens marked by tt. The index must store its text word-coded
// (WordText).
func (ix *Index) TextWindow(docid, from, to uint32, before, after int, tt *TextTerms, w *TextWindow) error {
	if ix.seg != nil && uint64(docid) < ix.meta.Docs {
		p, d := ix.Locate(docid)
		return p.TextWindow(d, from, to, before, after, tt, w)
	}
	if ix.words == nil {
		return fmt.Errorf("index: the text is not stored word-coded")
	}
	if uint64(docid) >= ix.meta.Docs {
		return fmt.Errorf("index: no document %d: the index holds %d documents", docid, ix.meta.Docs)
	}
	return ix.Guard(func() error {
		return ix.words.window(docid, from, to, before, after, tt.sets[ix.words], w)
	})
}

// window decodes document d's text around tokens from through to: from
// a token leaving before bytes before from (or the start), until after
// bytes after from's start and past to (or the end). Tokens before the
// first one kept are skipped from their checkpoint, their text not
// built.
func (f *wordFile) window(d, from, to uint32, before, after int, set *rankSet, w *TextWindow) error {
	n := f.docToks[d]
	w.First, w.AtStart = 0, true
	if n == 0 {
		w.Tokens = w.Tokens[:0]
		var err error
		w.Text, _, err = f.decode(d, 0, w.Text[:0], nil, nil, math.MaxUint32, math.MaxUint32, 0)
		w.AtEnd = true
		return err
	}
	from = min(from, n-1)
	to = min(max(to, from), n-1)
	if w.Tokens == nil {
		w.Tokens = make([]WindowToken, 0, 64) // decode records tokens into a non-nil slice
	}
	if cap(w.Text) < 1024 {
		w.Text = make([]byte, 0, 1024) // room for decode's moves of short words
	}
	// Start a short token's worth of bytes a token before from, and
	// twice as far back while the bytes before from fall short.
	back := uint32(before/3) + 1
	for {
		w.First = from - min(from, back)
		var err error
		w.Text, w.Tokens, err = f.decode(d, w.First, w.Text[:0], w.Tokens[:0], set, from, to, after)
		if err != nil {
			return err
		}
		if w.First == 0 || int(w.Tokens[from-w.First].Start) >= before {
			break
		}
		back *= 2
	}
	w.AtStart = w.First == 0
	w.AtEnd = w.First+uint32(len(w.Tokens)) == n
	return nil
}

// decode appends document d's text from token first (0: the start, with
// the gap before the first token) to text and its tokens to toks (unless
// toks is nil), stopping after token last at the first gap that ends
// after bytes or more after token from's start.
func (f *wordFile) decode(d, first uint32, text []byte, toks []WindowToken, set *rankSet, from, last uint32, after int) ([]byte, []WindowToken, error) {
	code := f.stream[f.docOffs[d]:f.docOffs[d+1]]
	n := f.docToks[d]
	tok, at := uint32(0), uint32(0)
	if c := first / checkpointTokens; c > 0 {
		if k := f.cpFirst[d] + c - 1; k < f.cpFirst[d+1] {
			tok, at = c*checkpointTokens, f.cps[k]
		}
	}
	nSym := uint64(len(f.syms))
	data := f.surfaces.data
	var err error
	if tok == 0 {
		if first == 0 {
			text, at, err = f.gap(d, code, at, text)
		} else {
			at, err = f.skipGap(d, code, at)
		}
		if err != nil {
			return text, toks, err
		}
	}
	for ; tok < first && tok < n; tok++ {
		v, next := readDense(code, at, f.stoppers)
		if v >= nSym {
			return text, toks, corruptf(fileTextWords, "document %d: token %d does not decode", d, tok)
		}
		if at = next; f.apart[v/64]>>(v%64)&1 == 1 {
			if at, err = f.skipGap(d, code, at); err != nil {
				return text, toks, err
			}
		}
	}
	stopAt, base := math.MaxInt, len(text)
	var batch [decodeBatch]struct {
		v    uint64
		gap  uint32 // where its gap's code starts, when coded apart
		next uint32 // where the next token's code starts
	}
	for tok < n && len(text) < stopAt {
		// Read a batch of tokens' codes first, skipping the gaps coded
		// apart by the apart bits, then load their symbols in one pass:
		// the loads no longer wait on each other, so their cache misses
		// overlap rather than follow one another.
		k := 0
		for ; k < decodeBatch && tok+uint32(k) < n; k++ {
			v, next := readDense(code, at, f.stoppers)
			if v >= nSym {
				return text, toks, corruptf(fileTextWords, "document %d: token %d does not decode", d, tok+uint32(k))
			}
			b := &batch[k]
			b.v, b.gap = v, next
			if at = next; f.apart[v/64]>>(v%64)&1 == 1 {
				if at, err = f.skipGap(d, code, at); err != nil {
					return text, toks, err
				}
			}
			b.next = at
		}
		room := lexPad
		for j := range k {
			room += f.syms[batch[j].v].size() + 2 // and a short gap
		}
		text = slices.Grow(text, room)
		if toks != nil {
			toks = slices.Grow(toks, k)
		}
		for j := range k {
			if len(text) >= stopAt {
				break
			}
			b := &batch[j]
			start := len(text)
			sy := &f.syms[b.v]
			switch size := sy.size(); {
			case size <= symInline && cap(text)-start >= symInline:
				binary.LittleEndian.PutUint64(text[start:start+symInline], sy[1])
				text = text[:start+size]
			case size <= symInline:
				text = binary.LittleEndian.AppendUint64(text, sy[1])[:start+size]
			default:
				off := uint32(sy[1])
				text = append(text, data[off:off+uint32(size)]...)
			}
			rank, g := sy.rank(), sy.gap()
			if toks != nil {
				toks = toks[:len(toks)+1] // grown above
				toks[len(toks)-1] = WindowToken{Start: uint32(start), End: uint32(len(text)), Term: set.term(rank), rank: rank}
			}
			if tok == from {
				base = start
			}
			if tok == last {
				stopAt = base + after
			}
			switch g {
			case 0:
				if text, _, err = f.gap(d, code, b.gap, text); err != nil {
					return text, toks, err
				}
			case 1:
				text = append(text, ' ')
			default:
				text = f.gaps.appendEntry(text, uint64(g-2))
			}
			at = b.next
			tok++
		}
	}
	if tok == n && at != uint32(len(code)) {
		return text, toks, corruptf(fileTextWords, "document %d: %d bytes of code after its %d tokens", d, len(code)-int(at), n)
	}
	return text, toks, nil
}

// readCode returns the uvarint at code[at:] and the offset after it;
// math.MaxUint64 where none decodes.
func readCode(code []byte, at uint32) (uint64, uint32) {
	if at < uint32(len(code)) && code[at] < 0x80 {
		return uint64(code[at]), at + 1
	}
	return readLongCode(code, at)
}

func readLongCode(code []byte, at uint32) (uint64, uint32) {
	if at+1 < uint32(len(code)) && code[at+1] < 0x80 {
		return uint64(code[at]&0x7f) | uint64(code[at+1])<<7, at + 2
	}
	if at >= uint32(len(code)) {
		return math.MaxUint64, at
	}
	v, k := binary.Uvarint(code[at:])
	if k <= 0 {
		return math.MaxUint64, at
	}
	return v, at + uint32(k)
}

// gap appends the gap whose code starts at code[at:] to text.
func (f *wordFile) gap(d uint32, code []byte, at uint32, text []byte) ([]byte, uint32, error) {
	rank, lit, at, err := f.readGap(d, code, at)
	if err != nil || lit != nil {
		return append(text, lit...), at, err
	}
	return f.gaps.appendEntry(text, rank), at, nil
}

// skipGap returns where the gap whose code starts at code[at:] ends.
func (f *wordFile) skipGap(d uint32, code []byte, at uint32) (uint32, error) {
	_, _, at, err := f.readGap(d, code, at)
	return at, err
}

// readGap reads the gap whose code starts at code[at:], checked: its rank
// in the gap lexicon, or a literal's bytes (lit not nil, even when empty:
// code is a slice of the stream), and where its code ends.
func (f *wordFile) readGap(d uint32, code []byte, at uint32) (rank uint64, lit []byte, next uint32, err error) {
	v, at := readCode(code, at)
	if v > 0 {
		if v-1 >= uint64(len(f.gaps.start)-1) {
			return 0, nil, at, corruptf(fileTextWords, "document %d: gap %d of %d", d, v-1, len(f.gaps.start)-1)
		}
		return v - 1, nil, at, nil
	}
	l, at := readCode(code, at)
	if l > uint64(len(code))-uint64(at) {
		return 0, nil, at, corruptf(fileTextWords, "document %d: a literal gap at byte %d runs past its code", d, at)
	}
	return 0, code[at : at+uint32(l) : at+uint32(l)], at + uint32(l), nil
}

// text returns document d's whole text.
func (f *wordFile) text(d uint32) (string, error) {
	t, _, err := f.decode(d, 0, nil, nil, nil, math.MaxUint32, math.MaxUint32, 0)
	return string(t), err
}

// tokens returns document d's whole text and its tokens, each with its
// term from terms (surfaceTerms), as the writer was given them.
func (f *wordFile) tokens(d uint32, terms []string) ([]byte, []StoredToken, error) {
	text, toks, err := f.decode(d, 0, nil, []WindowToken{}, nil, math.MaxUint32, math.MaxUint32, 0)
	if err != nil {
		return nil, nil, err
	}
	out := make([]StoredToken, len(toks))
	for i, t := range toks {
		out[i] = StoredToken{Start: t.Start, End: t.End, Term: terms[t.rank]}
	}
	return text, out, nil
}

// surfaceTerms returns every surface's term, by rank.
func (f *wordFile) surfaceTerms() ([]string, error) {
	terms := make([]string, len(f.surfaces.start)-1)
	at, prev := uint64(0), ""
	for i := range f.nterms {
		if i%termBlock == 0 {
			at = f.blocks[i/termBlock]
		}
		shared, _, err := f.shared(at)
		if i%termBlock == 0 {
			shared = 0
		}
		if err != nil || shared > len(prev) {
			return nil, corruptf(fileTextWords, "term %d: out of range", i)
		}
		suffix, rest, err := f.entry(at)
		if err != nil {
			return nil, err
		}
		t := prev[:shared] + string(suffix)
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)) {
			return nil, corruptf(fileTextWords, "term %q: its surfaces out of range", t)
		}
		rest = rest[k:]
		r := uint64(0)
		for range n {
			v, k := binary.Uvarint(rest)
			if k <= 0 || r+v >= uint64(len(terms)) {
				return nil, corruptf(fileTextWords, "term %q: surface out of range", t)
			}
			rest, r = rest[k:], r+v
			terms[r] = t
		}
		at, prev = uint64(len(f.terms)-len(rest)), t
	}
	for r, t := range terms {
		if t == "" {
			return nil, corruptf(fileTextWords, "surface %d has no term", r)
		}
	}
	return terms, nil
}
