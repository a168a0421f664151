package index

import (
	"fmt"
	"math"

	"github.com/gpusearch/gpusearch/index/bm25"
)

// A segment of a segmented index and a shard of a sharded collection
// both score under statistics that are not their own: those of the
// whole they are a part of. scoringStats is what BM25 needs of that
// whole; segmented (the live documents of every segment) and storedStats
// (a shard's collection.bin) implement it.
type scoringStats interface {
	// numDocs is the whole's document count, the N of the idf.
	numDocs() uint64
	// avgDocLen is its average document length, as BM25 uses it.
	avgDocLen() float32
	// termDF is the whole's df of a term of the part (t is the part's).
	termDF(t TermInfo) uint64
}

func (s *segmented) numDocs() uint64          { return s.docs }
func (s *segmented) avgDocLen() float32       { return s.avgLen }
func (s *segmented) termDF(t TermInfo) uint64 { return s.liveDF(t.Term) }

// fileCollection is a shard's collection statistics (docs/index-format.md):
// one deflate stream of the collection's document count and token count
// (uvarints), its average length as BM25 uses it (float32 bits), the
// shard's term count (uvarint) and then, for every term of the shard's
// lexicon in lexicon order, the term's df in the collection (uvarint).
const fileCollection = "collection.bin"

// storedStats is a parsed collection.bin.
type storedStats struct {
	docs, tokens uint64
	avgLen       float32
	df           []uint32 // per term of the shard's lexicon
}

func (s *storedStats) numDocs() uint64          { return s.docs }
func (s *storedStats) avgDocLen() float32       { return s.avgLen }
func (s *storedStats) termDF(t TermInfo) uint64 { return uint64(s.df[t.ID]) }

// writeCollection writes collection.bin into the new generation: the
// collection's statistics and the df of each term added, in order.
func (w *Writer) writeCollection() error {
	f, err := w.createOptional(fileCollection)
	if err != nil {
		return err
	}
	s, err := newStreamOn(f)
	if err != nil {
		return err
	}
	sh := w.opts.Shard
	s.uvarint(sh.Info.CollectionDocs)
	s.uvarint(sh.Tokens)
	s.float32(avgDocLen(sh.Tokens, int(sh.Info.CollectionDocs)))
	s.uvarint(uint64(len(w.collDF)))
	s.flush()
	for _, df := range w.collDF {
		s.uvarint(uint64(df))
		if len(s.buf) >= 1<<16 {
			s.flush()
		}
	}
	s.flush()
	s.end() // errors surface when Close finishes the file
	return nil
}

// readCollection parses collection.bin, which a shard has, and makes its
// statistics the ones the shard scores under, checking them against the
// shard: as many dfs as terms, each at least the shard's own df and at
// most what the shard's and the other shards' documents can hold, a
// collection at least as large as the shard, and the average length its
// counts give.
func (ix *Index) readCollection() error {
	data, ok := ix.maps[fileCollection]
	if !ok {
		return nil
	}
	return ix.Guard(func() error {
		st, err := parseCollection(data, ix)
		if err != nil {
			return err
		}
		ix.coll = st
		ix.norms = ix.params.Norms(ix.docLens, st.avgLen)
		return nil
	})
}

func parseCollection(data []byte, ix *Index) (*storedStats, error) {
	m := ix.meta
	s := newStreamReader(fileCollection, data)
	st := &storedStats{docs: s.uvarint(), tokens: s.uvarint(), avgLen: s.float32()}
	terms := s.uvarint()
	if s.err != nil {
		return nil, s.err
	}
	switch {
	case st.docs != m.Shard.CollectionDocs:
		return nil, corruptf(fileCollection, "%d documents, meta.json's shard says the collection has %d", st.docs, m.Shard.CollectionDocs)
	case st.docs < m.Docs || st.docs >= uint64(NoMoreDocs):
		return nil, corruptf(fileCollection, "a collection of %d documents for a shard of %d (at most 2^32-1)", st.docs, m.Docs)
	case st.tokens < m.Tokens:
		return nil, corruptf(fileCollection, "a collection of %d tokens for a shard of %d", st.tokens, m.Tokens)
	case math.Float32bits(st.avgLen) != math.Float32bits(avgDocLen(st.tokens, int(st.docs))):
		return nil, corruptf(fileCollection, "average length %v, but %d tokens in %d documents give %v", st.avgLen, st.tokens, st.docs, avgDocLen(st.tokens, int(st.docs)))
	case terms != m.Terms:
		return nil, corruptf(fileCollection, "dfs of %d terms, the shard has %d", terms, m.Terms)
	}
	others := st.docs - m.Docs // the documents of the other shards
	st.df = make([]uint32, terms)
	for i := range st.df {
		df := s.uvarint()
		if s.err != nil {
			break
		}
		own := uint64(ix.lexicon[i].df)
		if df < own || df-own > others {
			s.failf("term %q: df %d in the collection, %d in the shard, whose collection has %d other documents", ix.termString(i), df, own, others)
			break
		}
		st.df[i] = uint32(df)
	}
	if err := s.end(); err != nil {
		return nil, err
	}
	return st, nil
}

// collStats returns, for a term of a segment or shard (df postings
// there), its idf over the whole and the factor that turns the part's
// stored score bounds of it into bounds under the whole's statistics: a
// term score is idf * tf*(k1+1)/(tf+norm), so it grows with the idf's
// ratio, and, when the whole's average length is the larger, its norm
// shrinks by at most that ratio, which tf/(tf+norm) gains at most. The
// margin covers float32 rounding.
func (ix *Index) collStats(t TermInfo) (idf float32, scale float64) {
	s := ix.coll
	idf = bm25.IDF(s.numDocs(), s.termDF(t))
	scale = float64(idf) / float64(bm25.IDF(ix.meta.Docs, uint64(t.DF)))
	if r := float64(s.avgDocLen()) / float64(ix.avgLen); r > 1 {
		scale *= r
	}
	return idf, scale * (1 + 1e-5)
}

// scaleUp multiplies a bound by f, rounding up.
func scaleUp(bound float32, f float64) float32 {
	if bound == 0 {
		return 0
	}
	return math.Nextafter32(float32(float64(bound)*f), float32(math.Inf(1)))
}

// checkShardSpec checks a shard writer's collection against its
// documents.
func checkShardSpec(sh *ShardSpec, docs int, tokens uint64) error {
	in := sh.Info
	switch {
	case in.Collection == "":
		return fmt.Errorf("index: shard: no collection identity")
	case in.Count < 1 || in.Index < 0 || in.Index >= in.Count:
		return fmt.Errorf("index: shard %d of %d", in.Index, in.Count)
	case in.CollectionDocs >= uint64(NoMoreDocs) || uint64(in.FirstDoc)+uint64(docs) > in.CollectionDocs:
		return fmt.Errorf("index: shard of %d documents from docid %d in a collection of %d (at most 2^32-1)", docs, in.FirstDoc, in.CollectionDocs)
	case sh.Tokens < tokens:
		return fmt.Errorf("index: shard of %d tokens in a collection of %d", tokens, sh.Tokens)
	case sh.DF == nil:
		return fmt.Errorf("index: shard: no collection dfs")
	}
	return nil
}
