package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// Positions: positions.bin holds, for every block of postings, the token
// positions of its postings (0-based places in the document's analyzed term
// sequence), so that a cursor finds a posting's positions by decoding its
// own block only. A block's positions are, posting by posting, the first
// position and then each gap less one (positions strictly increase), freq
// values a posting; the block's values are cut into chunks of the
// positions codec's block size, written as the size of the chunks'
// lengths, every chunk's encoded length (uvarints, together) and then
// the chunks' codec bytes, so that a posting deep in a block of a
// frequent term is reached by reading a few bytes of lengths, no more
// than it needs, rather than a cache line per chunk before it. After
// the blocks comes the block table: each block's encoded size (uvarints),
// the positions codec's name and its length (one byte), then the number
// of blocks and the table's byte offset (uint64, little-endian) and the
// magic "gsposit2" (builds before the lengths were put together wrote
// "gsposits": such an index must be rebuilt).

// filePositions is the positions' file, one of optionalFiles.
const filePositions = "positions.bin"

// positionsMagic ends positions.bin; oldPositionsMagic ended it when each
// chunk's length lay before the chunk.
const (
	positionsMagic    = "gsposit2"
	oldPositionsMagic = "gsposits"
)

// positionsTrailer is the fixed tail: name length, block count, table
// offset, magic.
const positionsTrailer = 1 + 8 + 8 + len(positionsMagic)

// appendPositionGaps appends one posting's positions (strictly increasing)
// as values: the first, then each gap less one.
func appendPositionGaps(vals, positions []uint32) []uint32 {
	for i, p := range positions {
		if i > 0 {
			p -= positions[i-1] + 1
		}
		vals = append(vals, p)
	}
	return vals
}

// appendPositionsBlock encodes one block's position values (the
// appendPositionGaps of its postings, in order) in chunks of the codec's
// block size.
func appendPositionsBlock(dst []byte, c codecplugins.Codec, vals []uint32) []byte {
	if le, ok := c.(codecplugins.ListEncoder); ok {
		c = le.ForList(vals)
	}
	bs := c.BlockSize()
	var lens, chunks []byte
	for start := 0; start < len(vals); start += bs {
		at := len(chunks)
		chunks = c.AppendBlock(chunks, vals[start:min(start+bs, len(vals))])
		lens = binary.AppendUvarint(lens, uint64(len(chunks)-at))
	}
	dst = binary.AppendUvarint(dst, uint64(len(lens)))
	return append(append(dst, lens...), chunks...)
}

// positionsBlock decodes one block's positions a chunk at a time, as
// postings ask for them: a posting's positions usually lie in one chunk,
// so a phrase check decodes one chunk a term, not the whole block.
type positionsBlock struct {
	codec  codecplugins.Codec
	src    []byte
	fm1    []uint32 // the postings' frequencies less one
	total  int      // the block's value count
	at     int      // the last posting asked, whose first value is atVal
	atVal  int
	chunks []chunk  // the chunks whose lengths are read, in order
	next   int      // where in src the next unread chunk length lies
	lens   int      // where the chunk lengths end and the chunks begin
	off    int      // where the next unread chunk begins
	vals   []uint32 // the values of the chunks decoded so far, one after another
}

// chunk is one chunk's encoded bytes in src, and where vals holds its
// values (-1: not decoded).
type chunk struct {
	off, size int
	at        int
}

// reset starts on a block encoded in src, for postings of the given
// frequencies stored as freq-1 (fm1). It reads only the size of the
// chunks' lengths: a length that does not fit is an error wrapping
// ErrCorrupt from the posting that needs it. Nothing here panics or
// reads past src.
func (b *positionsBlock) reset(c codecplugins.Codec, src []byte, fm1 []uint32) error {
	b.codec, b.src, b.fm1, b.chunks = c, src, fm1, b.chunks[:0]
	n := uint64(len(fm1))
	for _, f := range fm1 {
		n += uint64(f)
	}
	bs := uint64(c.BlockSize())
	// Every chunk takes at least its length's byte: bound n before
	// decoding for it.
	if n > math.MaxUint32 || n > uint64(len(src))*bs {
		return fmt.Errorf("%w: %d positions in %d bytes", ErrCorrupt, n, len(src))
	}
	b.total, b.at, b.atVal = int(n), 0, 0
	b.vals = b.vals[:0]
	size, w := binary.Uvarint(src)
	if w <= 0 || size > uint64(len(src)-w) {
		return fmt.Errorf("%w: positions chunks' lengths of %d bytes in %d", ErrCorrupt, size, len(src))
	}
	b.next, b.lens = w, w+int(size)
	b.off = b.lens
	return nil
}

// chunk returns chunk k of the block, reading the lengths up to it.
func (b *positionsBlock) chunk(k int) (*chunk, error) {
	for len(b.chunks) <= k {
		size, n := binary.Uvarint(b.src[b.next:b.lens])
		if n <= 0 || size > uint64(len(b.src)-b.off) {
			return nil, fmt.Errorf("%w: positions chunk %d's length", ErrCorrupt, len(b.chunks))
		}
		b.chunks = append(b.chunks, chunk{off: b.off, size: int(size), at: -1})
		b.next += n
		b.off += int(size)
	}
	return &b.chunks[k], nil
}

// posting appends posting i's positions, absolute and increasing, to
// dst[:0], up to the first at or past limit (all of them for
// math.MaxUint32), decoding only the chunks those lie in.
func (b *positionsBlock) posting(dst []uint32, i int, limit uint32) ([]uint32, error) {
	// Summed here from the last posting asked (or the block's start),
	// rather than every start at reset: a snippet asks one posting a
	// block, a phrase check postings in increasing order.
	if i < b.at {
		b.at, b.atVal = 0, 0
	}
	s := b.atVal + i - b.at
	for _, f := range b.fm1[b.at:i] {
		s += int(f)
	}
	b.at, b.atVal = i, s
	e := s + int(b.fm1[i]) + 1
	bs := b.codec.BlockSize()
	dst = slices.Grow(dst[:0], e-s)
	// Each value is a gap less one, the first one the position less one
	// past a virtual -1; positions increase, so the last one alone can
	// tell a position past 2^32.
	prev := ^uint64(0)
	for at := s; at < e; {
		k := at / bs
		ch, err := b.chunk(k)
		if err != nil {
			return dst[:0], err
		}
		if ch.at < 0 {
			n := min(bs, b.total-k*bs)
			ch.at = len(b.vals)
			b.vals = slices.Grow(b.vals, n)[:ch.at+n]
			if err := b.codec.DecodeBlock(b.vals[ch.at:], b.src[ch.off:ch.off+ch.size], n); err != nil {
				b.vals, ch.at = b.vals[:ch.at], -1
				return dst[:0], positionsCorrupt(err)
			}
		}
		vals := b.vals[ch.at+at-k*bs : ch.at+min(e, (k+1)*bs)-k*bs]
		at += len(vals)
		n := len(dst)
		dst = dst[:n+len(vals)] // grown for the posting above
		if limit == math.MaxUint32 {
			// Every position: no limit to check at each.
			for j, g := range vals {
				prev += uint64(g) + 1
				dst[n+j] = uint32(prev)
			}
			continue
		}
		for j, g := range vals {
			prev += uint64(g) + 1
			dst[n+j] = uint32(prev)
			if prev >= uint64(limit) {
				return checkPositions(dst[:n+j+1], prev)
			}
		}
	}
	return checkPositions(dst, prev)
}

// checkPositions returns dst, or an error where the last position
// decoded, p, lies past 2^32.
func checkPositions(dst []uint32, p uint64) ([]uint32, error) {
	if p > math.MaxUint32 {
		return dst[:0], fmt.Errorf("%w: position past 2^32", ErrCorrupt)
	}
	return dst, nil
}

// positionsCorrupt wraps a codec's error so that it wraps ErrCorrupt.
func positionsCorrupt(err error) error {
	if errors.Is(err, ErrCorrupt) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrCorrupt, err)
}

// appendPositionsTable appends the block table and the trailer to a
// positions file whose blocks take dataLen bytes, encoded with the codec
// named codec (at most 255 bytes).
func appendPositionsTable(dst []byte, sizes []uint64, dataLen uint64, codec string) []byte {
	for _, s := range sizes {
		dst = binary.AppendUvarint(dst, s)
	}
	dst = append(dst, codec...)
	dst = append(dst, byte(len(codec)))
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(sizes)))
	dst = binary.LittleEndian.AppendUint64(dst, dataLen)
	return append(dst, positionsMagic...)
}

// parsePositionsTable reads a positions file's block table and codec name:
// B+1 byte offsets of its blocks, checked to tile the data exactly for
// blocks blocks.
func parsePositionsTable(b []byte, blocks uint64) (offs []uint64, codec string, err error) {
	if len(b) >= positionsTrailer && string(b[len(b)-len(oldPositionsMagic):]) == oldPositionsMagic {
		return nil, "", errOldPositions
	}
	if len(b) < positionsTrailer || string(b[len(b)-len(positionsMagic):]) != positionsMagic {
		return nil, "", fmt.Errorf("no positions trailer")
	}
	t := b[len(b)-positionsTrailer:]
	nameLen := uint64(t[0])
	count, dataLen := binary.LittleEndian.Uint64(t[1:]), binary.LittleEndian.Uint64(t[9:])
	if count != blocks {
		return nil, "", fmt.Errorf("%d blocks, the postings have %d", count, blocks)
	}
	if dataLen > uint64(len(b)-positionsTrailer) || nameLen > uint64(len(b)-positionsTrailer)-dataLen {
		return nil, "", fmt.Errorf("block table at %d, past the file's end", dataLen)
	}
	nameAt := uint64(len(b)-positionsTrailer) - nameLen
	codec = string(b[nameAt : nameAt+nameLen])
	table := b[dataLen:nameAt]
	// Every size takes at least a byte: bound the table before allocating.
	if count > uint64(len(table)) {
		return nil, "", fmt.Errorf("%d blocks in a table of %d bytes", count, len(table))
	}
	offs = make([]uint64, count+1)
	for i := range count {
		s, k := binary.Uvarint(table)
		if k <= 0 || s > dataLen-offs[i] {
			return nil, "", fmt.Errorf("block %d's size is damaged or reaches past the data", i)
		}
		offs[i+1] = offs[i] + s
		table = table[k:]
	}
	if len(table) != 0 || offs[count] != dataLen {
		return nil, "", fmt.Errorf("blocks take %d bytes of %d", offs[count], dataLen)
	}
	return offs, codec, nil
}

// startPositions creates positions.bin for a writer with positions.
func (w *Writer) startPositions() error {
	name := w.opts.PositionsCodec
	if name == "" {
		name = w.dc.Name()
	}
	var err error
	if w.pc, err = codecplugins.Lookup(name); err != nil {
		return fmt.Errorf("index: positions codec: %w", err)
	}
	if len(w.pc.Name()) > math.MaxUint8 {
		return fmt.Errorf("index: positions codec name %q too long", w.pc.Name())
	}
	w.positions, err = w.createOptional(filePositions)
	return err
}

// checkPositions checks a term's positions: freqs[i] of them for posting
// i, strictly increasing, below the document's length.
func (w *Writer) checkPositions(term string, docids, freqs, positions []uint32) error {
	i := 0
	for k, d := range docids {
		f := int(freqs[k])
		if f > len(positions)-i {
			return fmt.Errorf("index: term %q: %d positions for more postings", term, len(positions))
		}
		for j, p := range positions[i : i+f] {
			if p >= w.docLens[d] || (j > 0 && p <= positions[i+j-1]) {
				return fmt.Errorf("index: term %q: docid %d: positions %v out of order or past its length %d", term, d, positions[i:i+f], w.docLens[d])
			}
		}
		i += f
	}
	if i != len(positions) {
		return fmt.Errorf("index: term %q: %d positions for %d occurrences", term, len(positions), i)
	}
	return nil
}

// writePositions writes one block's positions, the postings' of the
// frequencies given from the front of positions, and returns the rest.
func (w *Writer) writePositions(freqs, positions []uint32) []uint32 {
	w.posVals = w.posVals[:0]
	for _, f := range freqs {
		w.posVals = appendPositionGaps(w.posVals, positions[:f])
		positions = positions[f:]
	}
	enc := appendPositionsBlock(nil, w.pc, w.posVals)
	w.positions.Write(enc)
	w.posSizes = append(w.posSizes, uint64(len(enc)))
	return positions
}

// positionsFile is an open index's positions.bin.
type positionsFile struct {
	codec codecplugins.Codec
	data  []byte   // the blocks, mapped
	offs  []uint64 // B+1 byte offsets of the blocks in data
}

// ErrNoPositions is wrapped by Cursor.Positions on an index built without
// positions.
var ErrNoPositions = errors.New("index has no positions; rebuild with index.positions: true")

// errOldPositions is parsePositionsTable's answer to a positions file of
// a build before the chunks' lengths were put together.
var errOldPositions = errors.New("positions written by an older build, each chunk's length before it: rebuild the index")

// readPositions reads positions.bin's block table, if the index has
// positions.
func (ix *Index) readPositions() error {
	b, ok := ix.maps[filePositions]
	if !ok {
		return nil
	}
	offs, name, err := parsePositionsTable(b, ix.meta.Blocks)
	if errors.Is(err, errOldPositions) {
		return fmt.Errorf("index: %s: %w: %w", filePositions, ErrVersion, err)
	}
	if err != nil {
		return corruptf(filePositions, "%v", err)
	}
	c, err := codecplugins.Lookup(name)
	if err != nil {
		return corruptf(filePositions, "codec: %v", err)
	}
	ix.positions = &positionsFile{codec: c, data: b[:offs[len(offs)-1]], offs: offs}
	return nil
}

// HasPositions reports whether the index stores token positions.
func (ix *Index) HasPositions() bool {
	if ix.seg != nil {
		return ix.seg.parts[0].HasPositions()
	}
	return ix.positions != nil
}

// PositionsCodec is the positions' codec, or nil without positions.
func (ix *Index) PositionsCodec() codecplugins.Codec {
	if ix.seg != nil {
		return ix.seg.parts[0].PositionsCodec()
	}
	if ix.positions == nil {
		return nil
	}
	return ix.positions.codec
}

// Positions appends the current posting's token positions (0-based places
// in the document's analyzed term sequence, increasing) to dst[:0],
// decoding only the chunks of its block that hold them; an index without
// positions gives an error wrapping ErrNoPositions, and a damaged block
// one wrapping ErrCorrupt (which Err then reports too).
func (c *Cursor) Positions(dst []uint32) ([]uint32, error) {
	return c.PositionsTo(dst, math.MaxUint32)
}

// PositionsTo is Positions that stops after the first position at or past
// limit: a phrase check needs a frequent term's positions only up to its
// last candidate, and decodes no chunk beyond.
func (c *Cursor) PositionsTo(dst []uint32, limit uint32) ([]uint32, error) {
	pf := c.ix.positions
	switch {
	case pf == nil:
		return dst[:0], fmt.Errorf("index: %w", ErrNoPositions)
	case c.cur == NoMoreDocs || c.n == 0:
		return dst[:0], nil
	case c.err != nil:
		return dst[:0], c.err
	}
	if c.posBlk != c.blk {
		if !c.freqsReady {
			c.decodeFreqs()
		}
		if c.err != nil { // damaged frequencies
			return dst[:0], c.err
		}
		if err := c.pb.reset(pf.codec, pf.data[pf.offs[c.blk]:pf.offs[c.blk+1]], c.freqs[:c.n]); err != nil {
			c.err = c.blockError("positions", c.blk, err)
			return dst[:0], c.err
		}
		c.posBlk = c.blk
	}
	dst, err := c.pb.posting(dst, c.pos, limit)
	if err != nil {
		c.err = c.blockError("positions", c.blk, err)
		return dst, c.err
	}
	// Positions run from 0 below the length: one past it is damage.
	if last := dst[len(dst)-1]; last >= c.ix.docLens[c.cur] {
		c.err = c.blockError("positions", c.blk, fmt.Errorf("position %d past the document's length %d", last, c.ix.docLens[c.cur]))
		return dst[:0], c.err
	}
	return dst, nil
}

// PositionsBytes is the size of the positions' file, 0 without positions.
func (m Meta) PositionsBytes() int64 { return m.fileBytes(filePositions) }
