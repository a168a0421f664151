package index

import (
	"fmt"
	"unsafe"

	"github.com/gpusearch/gpusearch/internal/prefetch"

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
	first, end int      // the list's blocks: [first, end)
	blk        int      // decoded block, or first-1 before any
	buf        []uint32 // room for a block's docids
	docs       []uint32 // the decoded block's docids: buf[:n]
	freqs      []uint32
	n, pos     int
	cur        uint32
	last       int64                      // the decoded block's last docid; -1 when none is decoded
	pd         codecplugins.PrefixDecoder // the docid codec's prefix decode, if any
	freqsReady bool
	shallow    int
	decoded    int
	skipped    int
	err        error
	posBlk     int            // block whose positions pb decodes, or -1
	pb         positionsBlock // (positions.go)
	del        []uint64       // the segment's deleted docids' bits, skipped; nil if none
	scale      float64        // turns block bounds into the whole's (collection.go); 0: none
	mem        []uint32       // buf's and freqs' memory, which ReuseCursor keeps
}

// Cursor opens a cursor on a term's posting list, on its first posting.
func (ix *Index) Cursor(t TermInfo) *Cursor { return ix.ReuseCursor(nil, t, false) }

// LazyCursor opens a cursor on a term's posting list that decodes nothing
// until it moves: until its first Next (which moves to the first posting)
// or NextGEQ (which decodes only the block it lands in), it stands before
// the first posting and DocID and Freq mean nothing. An engine that only
// seeks into a list, as AND does into all but its shortest, then never
// decodes the blocks it jumps over, the first included.
func (ix *Index) LazyCursor(t TermInfo) *Cursor { return ix.ReuseCursor(nil, t, true) }

// ReuseCursor is LazyCursor (lazy) or Cursor on t, made in the memory of
// c, a cursor of ix that the caller is done with, or anew where c is nil.
// An engine that keeps its cursors from one query to the next spares the
// allocation of their block buffers: in a segmented index, a cost that
// every query pays once per term and segment, whatever the segment's
// size.
func (ix *Index) ReuseCursor(c *Cursor, t TermInfo, lazy bool) *Cursor {
	c = ix.rawCursorIn(c, t)
	if ix.coll != nil {
		c.del = ix.deleted
		if c.scale = t.scale; c.scale == 0 {
			_, c.scale = ix.collStats(t)
		}
	}
	if !lazy {
		c.loadBlock(c.first)
		c.skipDeleted()
	}
	return c
}

// rawCursor is LazyCursor on the list as it lies: in a segment, deleted
// documents and the segment's own bounds included.
func (ix *Index) rawCursor(t TermInfo) *Cursor { return ix.rawCursorIn(nil, t) }

// rawCursorIn is rawCursor in c's memory (ReuseCursor), or anew.
func (ix *Index) rawCursorIn(c *Cursor, t TermInfo) *Cursor {
	bs := ix.meta.BlockSize
	var mem []uint32
	var pb positionsBlock
	if c != nil && c.ix == ix {
		mem, pb = c.mem, c.pb // pb's buffers too: reset rewrites every field
	} else {
		c = new(Cursor)
		mem = make([]uint32, 2*bs) // one allocation for both blocks
	}
	*c = Cursor{
		ix:    ix,
		info:  t,
		first: int(t.FirstBlock),
		end:   int(t.FirstBlock) + t.NumBlocks(bs),
		buf:   mem[:bs:bs],
		docs:  mem[:0],
		freqs: mem[bs:],
		last:  -1,
		mem:   mem,
		pb:    pb,
	}
	c.blk = c.first - 1
	c.shallow = c.first
	c.posBlk = -1
	// Asked once here rather than at every block.
	c.pd, _ = ix.dc.(codecplugins.PrefixDecoder)
	return c
}

// skipDeleted moves the cursor past deleted documents.
func (c *Cursor) skipDeleted() uint32 {
	for c.deleted(c.cur) {
		c.next()
	}
	return c.cur
}

// deleted reports whether d is a deleted document of the cursor's
// segment. Next and NextGEQ ask it inline, and call skipDeleted only when
// they land on one: in a segment with deletions, most moves land on a
// live document, and the call cost more than the check.
func (c *Cursor) deleted(d uint32) bool {
	return c.del != nil && d != NoMoreDocs && c.del[d/64]&(1<<(d%64)) != 0
}

// Term describes the cursor's term.
func (c *Cursor) Term() TermInfo { return c.info }

// DocID is the current docid, or NoMoreDocs past the end.
func (c *Cursor) DocID() uint32 { return c.cur }

// Peek is the docid n postings past the current one when that posting is
// in the decoded block, else NoMoreDocs; the cursor does not move. It may
// be a deleted document: it is meant for prefetching.
func (c *Cursor) Peek(n int) uint32 {
	if i := c.pos + n; i < len(c.docs) {
		return c.docs[i]
	}
	return NoMoreDocs
}

// Len is the list's length (the term's df).
func (c *Cursor) Len() int { return int(c.info.DF) }

// Next moves to the next posting and returns its docid.
func (c *Cursor) Next() uint32 {
	d := c.next()
	if c.deleted(d) {
		d = c.skipDeleted()
	}
	return d
}

// next is Next without skipping deleted documents.
func (c *Cursor) next() uint32 {
	c.pos++
	if c.pos < len(c.docs) {
		c.cur = c.docs[c.pos]
		return c.cur
	}
	// Past the end, blk is end and loadBlock keeps the cursor exhausted.
	return c.loadBlock(c.blk + 1)
}

// NextGEQ moves to the first posting with docid >= target and returns its
// docid; it does not move when target <= DocID.
// A target inside the decoded block (the common case of every query loop)
// costs a compare and a short scan; anything else goes to nextGEQBlock.
func (c *Cursor) NextGEQ(target uint32) uint32 {
	d := c.nextGEQ(target)
	if c.deleted(d) {
		d = c.skipDeleted()
	}
	return d
}

// Stands reports whether the cursor stands on a docid >= target, where
// NextGEQ(target) would not move: never before a lazy cursor's first
// move, nor past the end. Small enough to inline, for a loop whose
// NextGEQ calls mostly find the cursor there already.
func (c *Cursor) Stands(target uint32) bool { return int64(target) <= c.last && target <= c.cur }

// nextGEQ is NextGEQ without skipping deleted documents.
func (c *Cursor) nextGEQ(target uint32) uint32 {
	if int64(target) > c.last {
		return c.nextGEQBlock(target)
	}
	// The block's last docid is >= target: the scan stops inside it. It
	// moves 4.6 postings on average (AND on all RFCs; 87% of the moves
	// are 8 or fewer), so a loop that exits on the first docid >= target
	// mispredicts its exit about once a call: counting the docids below
	// target eight at a time, without a branch, costs less.
	docs := c.docs
	p := c.pos
	for p+8 <= len(docs) {
		w := docs[p : p+8 : p+8]
		t := uint64(target)
		// (x - t) >> 63 is 1 exactly when x < t.
		k := (uint64(w[0])-t)>>63 + (uint64(w[1])-t)>>63 + (uint64(w[2])-t)>>63 + (uint64(w[3])-t)>>63 +
			(uint64(w[4])-t)>>63 + (uint64(w[5])-t)>>63 + (uint64(w[6])-t)>>63 + (uint64(w[7])-t)>>63
		p += int(k)
		if k < 8 {
			c.pos = p
			c.cur = docs[p]
			return c.cur
		}
	}
	for docs[p] < target {
		p++
	}
	c.pos = p
	c.cur = docs[p]
	return c.cur
}

// nextGEQBlock is NextGEQ for a target past the decoded block (or a cursor
// with no block decoded: lazy, or past the end): it gallops over the skip
// table, then binary searches the bracket, decodes the block it lands in
// and binary searches that. (The skip table's search without a branch,
// as the block's below, gained nothing: 1.007x on the RFC passages' AND.)
func (c *Cursor) nextGEQBlock(target uint32) uint32 {
	if c.blk >= c.end {
		return NoMoreDocs
	}
	lastDoc := c.ix.lastDoc
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
	// A fresh block is entered 25 to 40 postings deep on average (all
	// RFCs, AND and OR): binary search it, without a branch, for the
	// first docid >= target, which lies in docs[lo:lo+n] (the block's
	// last docid is >= target). A branch per step mispredicts about half
	// the time; without, top 10 took 0.96-0.97x the time for AND and
	// 0.97-0.98x for OR on the RFC passages and all RFCs (each query's
	// fastest of 3, one variant a pass).
	docs := c.docs
	t := uint64(target)
	lo = 0
	for n := len(docs); n > 1; {
		half := n / 2
		// (x - t) >> 63 is 1 exactly when x < t: then move past half.
		lo += half & -int((uint64(docs[lo+half-1])-t)>>63)
		n -= half
	}
	c.pos = lo
	c.cur = docs[lo]
	return c.cur
}

// Deletes reports whether the cursor skips deleted documents (a segment
// with deletions), where Rest returns nothing and Next and NextGEQ serve.
func (c *Cursor) Deletes() bool { return c.del != nil }

// Freq is the current posting's term frequency (0 past the end).
func (c *Cursor) Freq() uint32 {
	if !c.freqsReady {
		c.decodeFreqs()
	}
	return c.freqs[c.pos] + 1
}

// Rest returns the decoded block's postings from the current one on,
// their docids and their stored frequencies (each the term frequency less
// one), decoding the frequencies if need be: for an engine that scores a
// block in a loop of its own, then moves past what it read with Advance.
// ok is false, and the slices empty, where there is no such block (a lazy
// cursor before its first move, or past the end) or the cursor must skip
// deleted documents; Next and Freq serve there.
func (c *Cursor) Rest() (docs, freqs []uint32, ok bool) {
	if c.del != nil || c.pos >= len(c.docs) {
		return nil, nil, false
	}
	if !c.freqsReady {
		c.decodeFreqs()
	}
	return c.docs[c.pos:], c.freqs[c.pos:c.n], true
}

// Advance moves n postings on, n at most the length of what Rest returned
// (the whole of it: onto the next block's first posting), and returns the
// docid it reaches.
func (c *Cursor) Advance(n int) uint32 {
	if n <= 0 {
		return c.cur
	}
	c.pos += n - 1
	return c.Next()
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
	src := c.ix.docData[c.ix.offs[b].doc:c.ix.offs[b+1].doc]
	if f := c.ix.offs[b].freq; f < c.ix.offs[b+1].freq {
		// The block's frequencies lie in another file: asked for now,
		// they arrive while the docids decode and the engine aligns,
		// for the posting it scores. Top 10 took 0.99x the time for
		// AND and OR on the RFC passages (p50 0.97x and 0.98x), even on
		// all RFCs (each query's fastest of 3, one variant a pass).
		prefetch.T0(unsafe.Pointer(&c.ix.freqData[f]))
	}
	var base uint64
	if b > c.first {
		base = uint64(c.ix.lastDoc[b-1])
	}
	docs := c.buf[:n]
	var sum uint64
	if c.pd != nil {
		// The codec adds the gaps up as it decodes (SIMD bp128).
		if err := c.pd.DecodeBlockPrefix(c.buf, src, n, uint32(base)); err != nil {
			c.finish(c.blockError("docid", b, err))
			return NoMoreDocs
		}
		sum = uint64(docs[n-1])
	} else {
		if err := c.ix.dc.DecodeBlock(c.buf, src, n); err != nil {
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
	c.docs = docs
	c.last = int64(docs[n-1])
	c.freqsReady = false
	c.decoded++
	c.cur = docs[0]
	return c.cur
}

func (c *Cursor) decodeFreqs() {
	src := c.ix.freqData[c.ix.offs[c.blk].freq:c.ix.offs[c.blk+1].freq]
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
	c.docs = c.buf[:0]
	c.last = -1
	c.blk = c.end
	c.shallow = c.end
	// Freq past the end reads this 0 (stored as freq-1) instead of decoding
	// block c.end, which may lie past the skip table.
	c.freqs[0] = ^uint32(0)
	c.freqsReady = true
}
