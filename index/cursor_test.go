package index_test

import (
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/index/bm25"
)

// cursorLengths are list lengths around the 128-posting block boundary,
// plus a list holding every document.
var cursorLengths = []int{1, 2, 127, 128, 129, 255, 256, 257, 1000, 4999, 5000}

const cursorDocs = 5000

// geq is the linear-scan reference: the first index i >= from with
// docs[i] >= target, or len(docs).
func geq(docs []uint32, from int, target uint32) int {
	for from < len(docs) && docs[from] < target {
		from++
	}
	return from
}

func TestCursorNextGEQ(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	c := randomCollection(r, cursorDocs, cursorLengths)
	for _, codec := range testCodecs() {
		dir := t.TempDir()
		c.write(t, dir, codec)
		ix := openIndex(t, dir)
		for i, l := range c.lists {
			t.Run(codec+"/"+l.term, func(t *testing.T) {
				for trial := range 30 {
					// Odd trials open lazily: their first move is a Next
					// (to the first posting) or a NextGEQ anywhere.
					cur, lazy := ix.Cursor(ix.Term(i)), trial%2 == 1
					if lazy {
						cur = ix.LazyCursor(ix.Term(i))
					}
					if cur.Len() != len(l.docs) {
						t.Fatalf("Len() = %d, want %d", cur.Len(), len(l.docs))
					}
					pos := 0
					target := uint32(0)
					for step := 0; ; step++ {
						if lazy && step == 0 {
							if cur.Stands(0) {
								t.Fatalf("trial %d: a lazy cursor Stands(0) before its first move", trial)
							}
							var got uint32
							if trial%4 == 3 {
								target = uint32(r.IntN(cursorDocs))
								got = cur.NextGEQ(target)
								pos = geq(l.docs, 0, target)
							} else {
								got = cur.Next()
							}
							want := index.NoMoreDocs
							if pos < len(l.docs) {
								want = l.docs[pos]
							}
							if got != want || cur.DocID() != want {
								t.Fatalf("trial %d: a lazy cursor's first move (target %d) = %d, DocID() = %d; want %d", trial, target, got, cur.DocID(), want)
							}
							if want == index.NoMoreDocs {
								break
							}
							continue
						}
						// Mix small steps, far jumps, targets at or below the
						// current docid, and plain Next calls.
						var got uint32
						switch k := r.IntN(10); {
						case k < 2 && pos < len(l.docs):
							got = cur.Next()
							pos++
						default:
							switch {
							case k < 4:
								// At or below the current docid: no move.
								target = cur.DocID() - min(cur.DocID(), uint32(r.IntN(3)))
							case k < 7:
								target += 1 + uint32(r.IntN(3))
							default:
								target += uint32(r.IntN(cursorDocs / (1 + trial%8)))
							}
							// Stands: whether NextGEQ stays where it is.
							if want := cur.DocID() >= target; cur.Stands(target) != want {
								t.Fatalf("trial %d step %d: Stands(%d) on docid %d = %v, want %v", trial, step, target, cur.DocID(), !want, want)
							}
							got = cur.NextGEQ(target)
							pos = geq(l.docs, pos, target)
						}
						want := index.NoMoreDocs
						if pos < len(l.docs) {
							want = l.docs[pos]
						}
						if got != want || cur.DocID() != want {
							t.Fatalf("trial %d step %d: NextGEQ/Next (target %d) = %d, DocID() = %d; want %d", trial, step, target, got, cur.DocID(), want)
						}
						if want == index.NoMoreDocs {
							break
						}
						if r.IntN(2) == 0 {
							if f := cur.Freq(); f != l.freqs[pos] {
								t.Fatalf("trial %d step %d: Freq() at docid %d = %d, want %d", trial, step, want, f, l.freqs[pos])
							}
						}
					}
					// NoMoreDocs is sticky.
					for _, target := range []uint32{0, l.docs[len(l.docs)-1], index.NoMoreDocs - 1, index.NoMoreDocs} {
						if cur.Stands(target) {
							t.Fatalf("Stands(%d) past the end, want false", target)
						}
						if got := cur.NextGEQ(target); got != index.NoMoreDocs {
							t.Fatalf("NextGEQ(%d) past the end = %d, want NoMoreDocs", target, got)
						}
					}
					if got := cur.Next(); got != index.NoMoreDocs || cur.DocID() != index.NoMoreDocs {
						t.Fatalf("Next() past the end = %d (DocID %d), want NoMoreDocs", got, cur.DocID())
					}
					if got := cur.Freq(); got != 0 {
						t.Fatalf("Freq() past the end = %d, want 0", got)
					}
					if cur.Err() != nil {
						t.Fatalf("Err() = %v, want nil", cur.Err())
					}
				}
			})
		}
	}
}

func TestCursorPastEndTargets(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	c := randomCollection(r, cursorDocs, cursorLengths)
	dir := t.TempDir()
	c.write(t, dir, "varint-SU")
	ix := openIndex(t, dir)
	for i, l := range c.lists {
		last := l.docs[len(l.docs)-1]
		for _, target := range []uint32{last + 1, cursorDocs, index.NoMoreDocs - 1, index.NoMoreDocs} {
			cur := ix.Cursor(ix.Term(i))
			if got := cur.NextGEQ(target); got != index.NoMoreDocs {
				t.Errorf("%s: fresh NextGEQ(%d) = %d, want NoMoreDocs", l.term, target, got)
			}
			if got := cur.NextGEQ(0); got != index.NoMoreDocs {
				t.Errorf("%s: NextGEQ(0) after the end = %d, want NoMoreDocs", l.term, got)
			}
		}
		for _, cur := range []*index.Cursor{ix.Cursor(ix.Term(i)), ix.LazyCursor(ix.Term(i))} {
			if got := cur.NextGEQ(last); got != last {
				t.Errorf("%s: NextGEQ(last docid %d) = %d", l.term, last, got)
			}
		}
		if got := ix.LazyCursor(ix.Term(i)).NextGEQ(0); got != l.docs[0] {
			t.Errorf("%s: lazy NextGEQ(0) = %d, want the first docid %d", l.term, got, l.docs[0])
		}
		for _, target := range []uint32{last + 1, index.NoMoreDocs} {
			lazy := ix.LazyCursor(ix.Term(i))
			if got := lazy.NextGEQ(target); got != index.NoMoreDocs || lazy.Next() != index.NoMoreDocs {
				t.Errorf("%s: lazy NextGEQ(%d) = %d, want NoMoreDocs, sticky", l.term, target, got)
			}
		}
	}
}

func TestCursorSkipsBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	c := randomCollection(r, cursorDocs, cursorLengths)
	dir := t.TempDir()
	c.write(t, dir, "varint-SU")
	ix := openIndex(t, dir)
	bs := ix.BlockSize()
	for i, l := range c.lists {
		info := ix.Term(i)
		blocks := info.NumBlocks(bs)
		if want := (len(l.docs) + bs - 1) / bs; blocks != want {
			t.Errorf("%s: NumBlocks = %d, want %d", l.term, blocks, want)
		}
		cur := ix.Cursor(info)
		last := l.docs[len(l.docs)-1]
		cur.NextGEQ(last)
		wantSkipped, wantDecoded := max(blocks-2, 0), min(blocks, 2)
		if cur.BlocksSkipped() != wantSkipped || cur.BlocksDecoded() != wantDecoded {
			t.Errorf("%s (%d blocks): NextGEQ(last) skipped %d and decoded %d blocks, want %d and %d",
				l.term, blocks, cur.BlocksSkipped(), cur.BlocksDecoded(), wantSkipped, wantDecoded)
		}
		if blocks >= 8 && cur.BlocksSkipped() == 0 {
			t.Errorf("%s: a far jump skipped no blocks", l.term)
		}
		// A lazy cursor's first seek decodes only the block it lands in.
		lazy := ix.LazyCursor(info)
		lazy.ShallowNextGEQ(last)
		if lazy.BlockLastDocID() != last || lazy.BlocksDecoded() != 0 {
			t.Errorf("%s: lazy ShallowNextGEQ(last): block ends at %d, %d decoded; want %d, 0", l.term, lazy.BlockLastDocID(), lazy.BlocksDecoded(), last)
		}
		if got := lazy.NextGEQ(last); got != last || lazy.BlocksSkipped() != blocks-1 || lazy.BlocksDecoded() != 1 {
			t.Errorf("%s (%d blocks): lazy NextGEQ(last) = %d, skipped %d and decoded %d blocks, want %d, %d and 1",
				l.term, blocks, got, lazy.BlocksSkipped(), lazy.BlocksDecoded(), last, blocks-1)
		}
	}
}

// blockMax is the reference block-max score: the largest BM25 term score of
// the block's postings.
func blockMax(p bm25.Params, idf float32, norms []float32, l list, lo, hi int) float32 {
	var m float32
	for i := lo; i < hi; i++ {
		m = max(m, p.TermScore(idf, l.freqs[i], norms[l.docs[i]]))
	}
	return m
}

func TestCursorBlockMax(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	c := randomCollection(r, cursorDocs, cursorLengths)
	for _, codec := range testCodecs() {
		dir := t.TempDir()
		c.write(t, dir, codec)
		ix := openIndex(t, dir)
		bs := ix.BlockSize()
		p := bm25.DefaultParams()
		if ix.BM25() != p {
			t.Fatalf("BM25() = %+v, want %+v", ix.BM25(), p)
		}
		norms := ix.Norms()
		skips := ix.Skips()
		// The index stores docids and frequencies with the same codec.
		dc, err := codecplugins.Lookup(codec)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range c.lists {
			t.Run(codec+"/"+l.term, func(t *testing.T) {
				info := ix.Term(i)
				idf := bm25.IDF(cursorDocs, uint64(len(l.docs)))
				if ix.IDF(info) != idf {
					t.Errorf("IDF = %v, want %v", ix.IDF(info), idf)
				}
				// The skip table and MaxScore agree with the decoded blocks.
				var listMax float32
				for b := 0; b*bs < len(l.docs); b++ {
					lo, hi := b*bs, min((b+1)*bs, len(l.docs))
					want := blockMax(p, idf, norms, l, lo, hi)
					listMax = max(listMax, want)
					sb := int(info.FirstBlock) + b
					if skips.BlockMax[sb] != want || skips.LastDocIDs[sb] != l.docs[hi-1] {
						t.Errorf("skip table block %d: (max, last) = (%v, %d), want (%v, %d)", b, skips.BlockMax[sb], skips.LastDocIDs[sb], want, l.docs[hi-1])
					}
					// The offset columns delimit the block's bytes.
					docData, freqData := ix.Data()
					got := make([]uint32, bs)
					if err := dc.DecodeBlock(got[:], docData[skips.DocOffsets[sb]:skips.DocOffsets[sb+1]], hi-lo); err != nil {
						t.Fatalf("docid block %d: %v", b, err)
					}
					prev := uint32(0)
					if b > 0 {
						prev = l.docs[lo-1]
					}
					for j, g := range got[:hi-lo] {
						if prev += g; prev != l.docs[lo+j] {
							t.Fatalf("docid block %d: docid %d = %d, want %d", b, j, prev, l.docs[lo+j])
						}
					}
					if err := dc.DecodeBlock(got[:], freqData[skips.FreqOffsets[sb]:skips.FreqOffsets[sb+1]], hi-lo); err != nil {
						t.Fatalf("freq block %d: %v", b, err)
					}
					for j, f := range got[:hi-lo] {
						if f+1 != l.freqs[lo+j] {
							t.Fatalf("freq block %d: freq %d = %d, want %d", b, j, f+1, l.freqs[lo+j])
						}
					}
				}
				cur := ix.Cursor(info)
				if cur.MaxScore() != listMax || info.MaxScore != listMax {
					t.Errorf("MaxScore() = %v (lexicon %v), want %v", cur.MaxScore(), info.MaxScore, listMax)
				}
				// Shallow moves, checked against the block of the first
				// posting >= target; NextGEQ and runs of Next now and then,
				// after which the skip pointer must not lag the decoded block.
				target := uint32(0)
				pos := 0 // the cursor's position in l.docs
				for {
					cur.ShallowNextGEQ(target)
					first := geq(l.docs, 0, target)
					wantLast, wantMax := index.NoMoreDocs, float32(0)
					if first < len(l.docs) && pos < len(l.docs) {
						b := max(first/bs, pos/bs)
						hi := min((b+1)*bs, len(l.docs))
						wantLast, wantMax = l.docs[hi-1], blockMax(p, idf, norms, l, b*bs, hi)
					}
					if got := cur.BlockLastDocID(); got != wantLast {
						t.Fatalf("after ShallowNextGEQ(%d) at docid %d: BlockLastDocID() = %d, want %d", target, cur.DocID(), got, wantLast)
					}
					if got := cur.BlockMaxScore(); got != wantMax {
						t.Fatalf("after ShallowNextGEQ(%d) at docid %d: BlockMaxScore() = %v, want %v", target, cur.DocID(), got, wantMax)
					}
					if wantLast == index.NoMoreDocs {
						break
					}
					switch r.IntN(4) {
					case 0:
						pos = geq(l.docs, pos, target)
						want := index.NoMoreDocs
						if pos < len(l.docs) {
							want = l.docs[pos]
						}
						if got := cur.NextGEQ(target); got != want {
							t.Fatalf("NextGEQ(%d) after ShallowNextGEQ = %d, want %d", target, got, want)
						}
					case 1:
						// Walk ahead with Next, then ask again for the
						// same target, now behind the cursor.
						for n := r.IntN(3 * bs); n > 0 && pos < len(l.docs); n-- {
							cur.Next()
							pos++
						}
						continue
					}
					target += 1 + uint32(r.IntN(2*cursorDocs/(1+len(l.docs)/bs)))
				}
				if cur.Err() != nil {
					t.Errorf("Err() = %v", cur.Err())
				}
			})
		}
	}
}

// TestCursorPeek walks every list with Next and checks Peek against the
// docids n postings on: the docid when it lies in the same block, else
// NoMoreDocs.
func TestCursorPeek(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	c := randomCollection(r, cursorDocs, cursorLengths)
	dir := t.TempDir()
	c.write(t, dir, "bp128")
	ix := openIndex(t, dir)
	bs := ix.BlockSize()
	for i, l := range c.lists {
		cur := ix.Cursor(ix.Term(i))
		for pos := range l.docs {
			for _, n := range []int{0, 1, 8, 127, 128} {
				want := index.NoMoreDocs
				if p := pos + n; p < len(l.docs) && p/bs == pos/bs {
					want = l.docs[p]
				}
				if got := cur.Peek(n); got != want {
					t.Fatalf("%s: at posting %d, Peek(%d) = %d, want %d", l.term, pos, n, got, want)
				}
			}
			if got := cur.DocID(); got != l.docs[pos] {
				t.Fatalf("%s: Peek moved the cursor: DocID %d, want %d", l.term, got, l.docs[pos])
			}
			cur.Next()
		}
	}
}

// TestCursorRest walks every list with Rest and Advance, random steps at
// a time, and checks what Rest returns against the list: the postings
// from the current one to its block's end, frequencies less one.
func TestCursorRest(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	c := randomCollection(r, cursorDocs, cursorLengths)
	for _, codec := range testCodecs() {
		dir := t.TempDir()
		c.write(t, dir, codec)
		ix := openIndex(t, dir)
		bs := ix.BlockSize()
		for i, l := range c.lists {
			cur := ix.LazyCursor(ix.Term(i))
			if docs, _, ok := cur.Rest(); ok || len(docs) != 0 {
				t.Fatalf("%s/%s: Rest before the first move = %d postings, %v; want none, false", codec, l.term, len(docs), ok)
			}
			cur.Next()
			for pos := 0; pos < len(l.docs); {
				docs, freqs, ok := cur.Rest()
				if want := min(len(l.docs), (pos/bs+1)*bs) - pos; !ok || len(docs) != want || len(freqs) != want {
					t.Fatalf("%s/%s: at posting %d, Rest = %d docids, %d freqs, %v; want %d, true", codec, l.term, pos, len(docs), len(freqs), ok, want)
				}
				for j := range docs {
					if docs[j] != l.docs[pos+j] || freqs[j]+1 != l.freqs[pos+j] {
						t.Fatalf("%s/%s: posting %d = (%d, %d), want (%d, %d)", codec, l.term, pos+j, docs[j], freqs[j]+1, l.docs[pos+j], l.freqs[pos+j])
					}
				}
				if got := cur.Advance(0); got != l.docs[pos] {
					t.Fatalf("%s/%s: Advance(0) at posting %d = %d, want %d", codec, l.term, pos, got, l.docs[pos])
				}
				n := 1 + r.IntN(len(docs))
				pos += n
				want := index.NoMoreDocs
				if pos < len(l.docs) {
					want = l.docs[pos]
				}
				if got := cur.Advance(n); got != want || cur.DocID() != want {
					t.Fatalf("%s/%s: Advance(%d) to posting %d = %d (DocID %d), want %d", codec, l.term, n, pos, got, cur.DocID(), want)
				}
			}
			if docs, _, ok := cur.Rest(); ok || len(docs) != 0 {
				t.Fatalf("%s/%s: Rest past the end = %d postings, %v; want none, false", codec, l.term, len(docs), ok)
			}
		}
	}
}
