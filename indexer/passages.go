package indexer

import (
	"errors"
	"math"
	"strconv"

	"github.com/gpusearch/gpusearch/analysis"
)

// passage is one passage of a document in passage mode (Options.Passages).
type passage struct {
	length uint32
	terms  docTerms
}

// splitPassages analyzes text and cuts its terms into k = max(1,
// round(L/size)) consecutive passages of L/k terms each (give or take
// one), so that every passage of a document of at least size/2 terms has
// between 3/4 and 3/2 of size terms. Passages do not overlap; a shorter
// document, even an empty one, is one passage. With positions, a term's
// positions count from its passage's start.
func splitPassages(a *analysis.Analyzer, text []byte, size int, positions bool) []passage {
	var terms []string
	a.Analyze(text, func(t string) { terms = append(terms, t) })
	k := max(1, int(math.Round(float64(len(terms))/float64(size))))
	out := make([]passage, k)
	for i := range out {
		lo, hi := i*len(terms)/k, (i+1)*len(terms)/k
		c := newTermCounter(positions)
		for _, t := range terms[lo:hi] {
			c.add(t)
		}
		out[i] = passage{length: c.n, terms: c.done()}
	}
	return out
}

// passageTable numbers passages in passage mode. Passages get temporary
// ids as their documents are collected (in whatever order the parallel
// parse finishes them); the postings carry those ids, and docs maps them
// to the final docids once every document is in.
type passageTable struct {
	first, count []uint32 // per slot: its passages' first temporary id, and how many
	lens         []uint32 // per temporary id: the passage's length
}

func newPassageTable(slots int) *passageTable {
	return &passageTable{first: make([]uint32, slots), count: make([]uint32, slots)}
}

// errTooManyPassages is returned past 2^32-1 passages.
var errTooManyPassages = errors.New("indexer: more than 2^32-1 passages")

// add gives a document's passages their temporary ids and inverts them.
func (t *passageTable) add(slot uint32, ps []passage, inv *inverter) error {
	if uint64(len(t.lens))+uint64(len(ps)) >= math.MaxUint32 {
		return errTooManyPassages
	}
	first := uint32(len(t.lens))
	t.first[slot], t.count[slot] = first, uint32(len(ps))
	for i, p := range ps {
		t.lens = append(t.lens, p.length)
		if err := inv.add(first+uint32(i), p.terms); err != nil {
			return err
		}
	}
	return nil
}

// docs assigns the final docids: documents in slot (docid) order, and a
// document's passages consecutively in text order, so the document order
// of the build is kept. Passage i (from 1) of a document with URL u has
// URL u#p<i>. It returns the temporary id -> docid map, and the passages'
// lengths and URLs in docid order.
func (t *passageTable) docs(files []docFile, failed []bool) (remap, lens []uint32, urls []string) {
	remap = make([]uint32, len(t.lens))
	for slot, f := range files {
		if failed[slot] {
			continue
		}
		for i := range t.count[slot] {
			id := t.first[slot] + i
			remap[id] = uint32(len(urls))
			lens = append(lens, t.lens[id])
			urls = append(urls, f.url+"#p"+strconv.Itoa(int(i)+1))
		}
	}
	return remap, lens, urls
}
