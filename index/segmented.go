package index

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/gpusearch/gpusearch/index/bm25"
)

// A segmented index (a version 7 commit point, docs/index-format.md) opens
// as one Index that holds its segments, each an Index of its own: the
// segments' own docids, lexicons and postings, their deleted documents
// skipped by their cursors, and scores under the statistics of the whole
// collection of live documents, as a fresh build of those documents
// would score them. The whole numbers the live documents as the fresh
// build would (crawl files in URL order, a file's documents together), so
// that its URLs, lengths, titles and texts, and the query layer's hits,
// use the fresh build's docids.

// segmented is a segmented index's segments and the numbering and
// statistics of its live documents.
type segmented struct {
	parts   []*Index
	deleted []*roaring.Bitmap // per segment; nil without deletions
	global  [][]uint32        // per segment: each docid's in the whole, or Dropped
	part    []uint32          // per docid of the whole: its segment
	local   []uint32          // per docid of the whole: its docid in the segment
	docs    uint64            // live documents
	avgLen  float32           // their average length, as BM25 uses it
	df      sync.Map          // term -> its live df (uint64), computed on first use
	found   sync.Map          // term -> *segTerm, for the terms Lookup found
}

// segTerm is a term as every segment's Lookup answers it, resolved over
// all segments on its first lookup, so that a query's lookups in the
// segments hash no lexicon and scale no idf or bound: per segment, its
// TermInfo under the whole's statistics (has[i] false where segment i
// lacks the term).
type segTerm struct {
	infos []TermInfo
	has   []bool
}

// openSegmented opens the segments a version 7 commit point names.
func openSegmented(dir string, meta Meta, mem Memory) (*Index, error) {
	s := &segmented{}
	ix := &Index{dir: dir, meta: meta, maps: map[string][]byte{}, seg: s, mem: mem}
	fail := func(err error) (*Index, error) {
		ix.Close()
		return nil, err
	}
	for _, sm := range meta.Segments {
		m := sm.Meta
		m.Version = FormatVersion
		// Frequencies and lengths that fold in different title weights
		// would score as one collection what no build could give.
		if m.TitleWeight != meta.TitleWeight {
			return fail(corruptf(fileMeta, "segment %s has title weight %d, the index %d", m.Generation, m.TitleWeight, meta.TitleWeight))
		}
		p, err := open(dir, m, mem)
		if err != nil {
			return fail(fmt.Errorf("segment %s: %w", m.Generation, err))
		}
		p.part = len(s.parts)
		s.parts = append(s.parts, p)
		var del *roaring.Bitmap
		if sm.Deletions != nil {
			if del, err = readDeletions(dir, *sm.Deletions, m.Docs); err != nil {
				return fail(err)
			}
			p.deleted = make([]uint64, (m.Docs+63)/64)
			for it := del.Iterator(); it.HasNext(); {
				d := it.Next()
				p.deleted[d/64] |= 1 << (d % 64)
			}
		}
		s.deleted = append(s.deleted, del)
	}
	ix.dc, ix.fc = s.parts[0].dc, s.parts[0].fc
	if err := s.number(); err != nil {
		return fail(err)
	}
	ix.docLens = make([]uint32, len(s.part))
	var tokens uint64
	for g := range s.part {
		l := s.parts[s.part[g]].docLens[s.local[g]]
		ix.docLens[g] = l
		tokens += uint64(l)
	}
	s.docs = uint64(len(s.part))
	s.avgLen = avgDocLen(tokens, len(s.part))
	switch {
	case s.docs != meta.Docs:
		return fail(corruptf(fileMeta, "docs is %d, but the segments hold %d live documents", meta.Docs, s.docs))
	case tokens != meta.Tokens:
		return fail(corruptf(fileMeta, "tokens is %d, but the live documents' lengths add up to %d", meta.Tokens, tokens))
	case float64(s.avgLen) != meta.AvgDocLength:
		return fail(corruptf(fileMeta, "avg_doc_length is %v, but the live documents' lengths give %v", meta.AvgDocLength, s.avgLen))
	}
	ix.avgLen = s.avgLen
	ix.params = bm25.Params{K1: meta.K1, B: meta.B}
	ix.norms = ix.params.Norms(ix.docLens, ix.avgLen)
	ix.byTerm = newTermTable(0, ix.termString)
	for _, p := range s.parts {
		p.coll = s
		p.norms = ix.params.Norms(p.docLens, s.avgLen)
	}
	return ix, nil
}

// number numbers the live documents as a fresh build would: the live
// crawl files of every segment (each segment records its sources) in URL
// order, a file's documents consecutively. A file's documents must be
// deleted all together or not at all, and no file may be live twice.
func (s *segmented) number() error {
	type live struct {
		url         string
		part        int
		first, docs uint32
	}
	var all []live
	s.global = make([][]uint32, len(s.parts))
	for i, p := range s.parts {
		_, srcs, ok := p.Sources()
		if !ok {
			return corruptf(fileMeta, "segment %s records no sources: a segmented index needs them to number its documents", p.meta.Generation)
		}
		s.global[i] = make([]uint32, p.meta.Docs)
		del := s.deleted[i]
		first := uint32(0)
		for _, src := range srcs {
			gone := uint64(0)
			if del != nil {
				gone = del.Rank(first+src.Docs-1) - rankBefore(del, first)
			}
			switch gone {
			case 0:
				all = append(all, live{src.URL, i, first, src.Docs})
			case uint64(src.Docs):
				for d := first; d < first+src.Docs; d++ {
					s.global[i][d] = Dropped
				}
			default:
				return corruptf(fileMeta, "segment %s deletes %d of the %d documents of %s", p.meta.Generation, gone, src.Docs, src.URL)
			}
			first += src.Docs
		}
	}
	slices.SortFunc(all, func(a, b live) int { return cmp.Compare(a.url, b.url) })
	for i := 1; i < len(all); i++ {
		if all[i].url == all[i-1].url {
			return corruptf(fileMeta, "%s is live in segments %s and %s", all[i].url, s.parts[all[i-1].part].meta.Generation, s.parts[all[i].part].meta.Generation)
		}
	}
	for _, l := range all {
		for d := l.first; d < l.first+l.docs; d++ {
			s.global[l.part][d] = uint32(len(s.part))
			s.part = append(s.part, uint32(l.part))
			s.local = append(s.local, d)
		}
	}
	return nil
}

// rankBefore counts the members of b below x.
func rankBefore(b *roaring.Bitmap, x uint32) uint64 {
	if x == 0 {
		return 0
	}
	return b.Rank(x - 1)
}

// liveDF is a term's df over the live documents of every segment: the
// segments' df less the term's postings in deleted documents, counted on
// the blocks whose docid range holds a deleted document.
func (s *segmented) liveDF(term string) uint64 {
	if v, ok := s.df.Load(term); ok {
		return v.(uint64)
	}
	var n uint64
	for i, p := range s.parts {
		t, ok := p.byTerm.find(term, p.termString)
		if !ok {
			continue
		}
		e := &p.lexicon[t]
		n += uint64(e.df)
		if del := s.deleted[i]; del != nil {
			n -= p.deletedPostings(p.rawInfo(t, term), del)
		}
	}
	s.df.Store(strings.Clone(term), n)
	return n
}

// lookup is term in every segment (segTerm), nil when none holds it.
// Terms that some segment holds are kept for the index's life, as their
// live df is: a query log's distinct terms, a small share of the
// lexicons.
func (s *segmented) lookup(term string) *segTerm {
	if v, ok := s.found.Load(term); ok {
		return v.(*segTerm)
	}
	var st *segTerm
	var key string
	for i, p := range s.parts {
		t, ok := p.byTerm.find(term, p.termString)
		if !ok {
			continue
		}
		if st == nil {
			key = strings.Clone(term)
			st = &segTerm{infos: make([]TermInfo, len(s.parts)), has: make([]bool, len(s.parts))}
		}
		st.infos[i], st.has[i] = p.termInfo(t, key), true
	}
	if st == nil {
		return nil // in no segment
	}
	v, _ := s.found.LoadOrStore(key, st)
	return v.(*segTerm)
}

// deletedPostings counts a list's postings in deleted documents.
func (ix *Index) deletedPostings(t TermInfo, del *roaring.Bitmap) uint64 {
	c := ix.rawCursor(t)
	var n uint64
	next := uint32(0) // the first docid the block can hold
	for b := c.first; b < c.end; b++ {
		last := ix.lastDoc[b]
		if del.Rank(last)-rankBefore(del, next) > 0 && c.loadBlock(b) != NoMoreDocs {
			for _, d := range c.docs[:c.n] {
				if del.Contains(d) {
					n++
				}
			}
		}
		next = last + 1
	}
	return n
}

// Segments returns the segments of a segmented index, or nil for an index
// of one segment without deletions. Each is an Index of its own docids
// whose cursors skip its deleted documents and whose idf, norms and score
// bounds are under the statistics of all live documents, so that an
// engine opened on each answers as on a fresh build of them, but for the
// docids (SegmentDocIDs maps them). The segments close with ix.
func (ix *Index) Segments() []*Index {
	if ix == nil || ix.seg == nil { // drivers may be opened on no index (tests)
		return nil
	}
	return ix.seg.parts
}

// SegmentDocIDs maps segment i's docids to ix's: the slice's d-th entry
// is docid d's in ix, or Dropped when d is deleted (read-only).
func (ix *Index) SegmentDocIDs(i int) []uint32 { return ix.seg.global[i] }

// Deleted returns a copy of segment i's deleted docids (empty when none).
func (ix *Index) Deleted(i int) *roaring.Bitmap {
	if del := ix.seg.deleted[i]; del != nil {
		return del.Clone()
	}
	return roaring.New()
}

// Locate returns the segment that holds ix's document docid and its docid
// there; for an index of one segment without deletions, ix and docid.
func (ix *Index) Locate(docid uint32) (*Index, uint32) {
	if ix.seg == nil {
		return ix, docid
	}
	return ix.seg.parts[ix.seg.part[docid]], ix.seg.local[docid]
}
