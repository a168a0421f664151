package index

import (
	"fmt"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// Cursor iterates over one term's posting list in docid order. A cursor
// from Index.Cursor sits on its first posting; one from Index.LazyCursor
// stands before it until it moves. NextGEQ skips whole blocks through the
// skip table and decodes only the block it lands in; frequencies are
// decoded only when Freq is called. Past the end, DocID is the sticky
// NoMoreDocs. A corrupt block ends the cursor early and is reported by Err.
//
// Cursor implements the block-max interface the pruning engines use: the
// shallow pointer (ShallowNextGEQ) moves over the skip table without
// decoding, and BlockMaxScore/BlockLastDocID describe the block under it.
type Cursor struct {
	ix         *Index
	info       TermInfo
	first, end int // the list's blocks: [first, end)
	blk        int // decoded block, or first-1 before any
	docs       []uint32
	freqs      []uint32
	n, pos     int
	cur        uint32
	freqsReady bool
	shallow    int
	decoded    int
	skipped    int
	err        error
	posBlk     int            // block whose positions pb decodes, or -1
	pb         positionsBlock // (positions.go)
	del        []uint64       // the segment's deleted docids' bits, skipped; nil if none
	scale      float64        // turns block bounds into the collection's (segmented.go); 0: none
}

// Cursor opens a cursor on a term's posting list, on its first posting.
func (ix *Index) Cursor(t TermInfo) *Cursor {
	c := ix.LazyCursor(t)
	c.loadBlock(c.first)
	c.skipDeleted()
	return c
}

// LazyCursor opens a cursor on a term's posting list that decodes nothing
// until it moves: until its first Next (which moves to the first posting)
// or NextGEQ (which decodes only the block it lands in), it stands before
// the first posting and DocID and Freq mean nothing. An engine that only
// seeks into a list, as AND does into all but its shortest, then never
// decodes the blocks it jumps over, the first included.
func (ix *Index) LazyCursor(t TermInfo) *Cursor {
	c := ix.rawCursor(t)
	if ix.coll != nil {
		c.del = ix.deleted
		if c.scale = t.scale; c.scale == 0 {
			_, c.scale = ix.collStats(t.DF, t.Term)
		}
	}
	return c
}

// rawCursor is LazyCursor on the list as it lies: in a segment, deleted
// documents and the segment's own bounds included.
func (ix *Index) rawCursor(t TermInfo) *Cursor {
	bs := ix.meta.BlockSize
	buf := make([]uint32, 2*bs) // one allocation for both blocks
	c := &Cursor{
		ix:    ix,
		info:  t,
		first: int(t.FirstBlock),
		end:   int(t.FirstBlock) + t.NumBlocks(bs),
		docs:  buf[:bs:bs],
		freqs: buf[bs:],
	}
	c.blk = c.first - 1
	c.shallow = c.first
	c.posBlk = -1
	return c
}

// skipDeleted moves the cursor past deleted documents.
func (c *Cursor) skipDeleted() uint32 {
	for c.del != nil && c.cur != NoMoreDocs && c.del[c.cur/64]&(1<<(c.cur%64)) != 0 {
		c.next()
	}
	return c.cur
}

// Term describes the cursor's term.
func (c *Cursor) Term() TermInfo { return c.info }

// DocID is the current docid, or NoMoreDocs past the end.
func (c *Cursor) DocID() uint32 { return c.cur }

// Len is the list's length (the term's df).
func (c *Cursor) Len() int { return int(c.info.DF) }

// Next moves to the next posting and returns its docid.
func (c *Cursor) Next() uint32 {
	d := c.next()
	if c.del != nil {
		d = c.skipDeleted()
	}
	return d
}

// next is Next without skipping deleted documents.
func (c *Cursor) next() uint32 {
	if c.cur == NoMoreDocs {
		return NoMoreDocs
	}
	c.pos++
	if c.pos < c.n {
		c.cur = c.docs[c.pos]
		return c.cur
	}
	return c.loadBlock(c.blk + 1)
}

// NextGEQ moves to the first posting with docid >= target and returns its
// docid; it does not move when target <= DocID.
func (c *Cursor) NextGEQ(target uint32) uint32 {
	d := c.nextGEQ(target)
	if c.del != nil {
		d = c.skipDeleted()
	}
	return d
}

// nextGEQ is NextGEQ without skipping deleted documents.
func (c *Cursor) nextGEQ(target uint32) uint32 {
	// A lazy cursor before its first block has cur 0 and n 0 (n is 0
	// otherwise only past the end, where cur is NoMoreDocs).
	if target <= c.cur && (c.cur != 0 || c.n > 0) {
		return c.cur
	}
	lastDoc := c.ix.lastDoc
	if c.n == 0 || target > lastDoc[c.blk] {
		// Gallop over the skip table, then binary search the bracket.
		lo, step := c.blk+1, 1
		hi := lo
		for hi < c.end && lastDoc[hi] < target {
			lo = hi + 1
			hi += step
			step <<= 1
		}
		hi = min(hi, c.end)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if lastDoc[mid] < target {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		c.skipped += lo - c.blk - 1
		if c.loadBlock(lo) == NoMoreDocs {
			return NoMoreDocs
		}
	}
	// The target is inside the current block.
	docs := c.docs[:c.n]
	p := c.pos
	for docs[p] < target {
		p++
	}
	c.pos = p
	c.cur = docs[p]
	return c.cur
}

// Freq is the current posting's term frequency (0 past the end).
func (c *Cursor) Freq() uint32 {
	if !c.freqsReady {
		c.decodeFreqs()
	}
	return c.freqs[c.pos] + 1
}

// MaxScore bounds the BM25 term score of every posting in the list.
func (c *Cursor) MaxScore() float32 { return c.info.MaxScore }

// ShallowNextGEQ moves the skip pointer to the block that would hold
// target, decoding nothing.
func (c *Cursor) ShallowNextGEQ(target uint32) {
	if c.shallow < c.blk {
		c.shallow = c.blk
	}
	for c.shallow < c.end && c.ix.lastDoc[c.shallow] < target {
		c.shallow++
	}
}

// BlockMaxScore bounds the term score of every posting in the block under
// the skip pointer (0 past the end).
func (c *Cursor) BlockMaxScore() float32 {
	if c.shallow >= c.end {
		return 0
	}
	if c.scale != 0 {
		return scaleUp(c.ix.blockMax[c.shallow], c.scale)
	}
	return c.ix.blockMax[c.shallow]
}

// BlockLastDocID is the last docid of the block under the skip pointer, or
// NoMoreDocs past the end.
func (c *Cursor) BlockLastDocID() uint32 {
	if c.shallow >= c.end {
		return NoMoreDocs
	}
	return c.ix.lastDoc[c.shallow]
}

// BlocksDecoded counts the docid blocks this cursor decoded.
func (c *Cursor) BlocksDecoded() int { return c.decoded }

// BlocksSkipped counts the blocks NextGEQ jumped over without decoding.
func (c *Cursor) BlocksSkipped() int { return c.skipped }

// Err reports a corrupt block met by the cursor, if any.
func (c *Cursor) Err() error { return c.err }

// loadBlock decodes block b's docids and positions the cursor on its first
// posting; past the list's end it makes the cursor exhausted.
func (c *Cursor) loadBlock(b int) uint32 {
	if b >= c.end {
		c.finish(nil)
		return NoMoreDocs
	}
	bs := c.ix.meta.BlockSize
	n := bs
	if b == c.end-1 {
		n = int(c.info.DF) - (c.end-1-c.first)*bs
	}
	src := c.ix.docData[c.ix.docOffs[b]:c.ix.docOffs[b+1]]
	var base uint64
	if b > c.first {
		base = uint64(c.ix.lastDoc[b-1])
	}
	docs := c.docs[:n]
	var sum uint64
	if pd, ok := c.ix.dc.(codecplugins.PrefixDecoder); ok {
		// The codec adds the gaps up as it decodes (SIMD bp128).
		if err := pd.DecodeBlockPrefix(c.docs, src, n, uint32(base)); err != nil {
			c.finish(c.blockError("docid", b, err))
			return NoMoreDocs
		}
		sum = uint64(docs[n-1])
	} else {
		if err := c.ix.dc.DecodeBlock(c.docs, src, n); err != nil {
			c.finish(c.blockError("docid", b, err))
			return NoMoreDocs
		}
		sum = base
		for i, g := range docs {
			sum += uint64(g)
			docs[i] = uint32(sum)
		}
	}
	if sum != uint64(c.ix.lastDoc[b]) || (b > c.first && docs[0] <= uint32(base)) {
		c.finish(c.blockError("docid", b, fmt.Errorf("gaps sum to %d, skip table says %d", sum, c.ix.lastDoc[b])))
		return NoMoreDocs
	}
	c.blk, c.n, c.pos = b, n, 0
	c.freqsReady = false
	c.decoded++
	c.cur = docs[0]
	return c.cur
}

func (c *Cursor) decodeFreqs() {
	src := c.ix.freqData[c.ix.freqOffs[c.blk]:c.ix.freqOffs[c.blk+1]]
	if err := c.ix.fc.DecodeBlock(c.freqs, src, c.n); err != nil {
		c.err = c.blockError("freq", c.blk, err)
		// Keep the engines going on a defined value; Err reports the damage.
		for i := range c.freqs[:c.n] {
			c.freqs[i] = 0
		}
	}
	c.freqsReady = true
}

func (c *Cursor) blockError(what string, b int, err error) error {
	return fmt.Errorf("index: term %q: %s block %d: %w: %w", c.info.Term, what, b-c.first, ErrCorrupt, err)
}

func (c *Cursor) finish(err error) {
	if err != nil && c.err == nil {
		c.err = err
	}
	c.cur = NoMoreDocs
	c.n, c.pos = 0, 0
	c.blk = c.end
	c.shallow = c.end
	// Freq past the end reads this 0 (stored as freq-1) instead of decoding
	// block c.end, which may lie past the skip table.
	c.freqs[0] = ^uint32(0)
	c.freqsReady = true
}
