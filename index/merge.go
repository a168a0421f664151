package index

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Dropped marks, in a MergeInput's DocMap, a document the merge leaves
// out.
const Dropped = NoMoreDocs

// MergeInput is one index a merge reads, and where its documents go.
type MergeInput struct {
	Index *Index
	// DocMap gives, for each of Index's docids, its docid in the merged
	// index, or Dropped. Over all inputs, the docids kept must number the
	// merged documents 0..N-1, each once.
	DocMap []uint32
	// Sources, when not nil, replaces Index's sources (Index.Sources) as
	// what its documents were read from: the same files in the same
	// docid order, with identities the caller refreshed.
	Sources []Source
}

// Merge writes into d a new generation holding the documents the
// inputs' DocMaps keep, under their new docids, and commits it: each
// document's length, URL and stored title and text, each posting's
// frequency and positions, and, when every input has them, the sources
// the documents were read from (a source's documents must be kept
// together, in order, or dropped together). Block-max bounds and lexicon
// statistics are computed afresh, as for a fresh build of the same
// documents, so that the merged index equals, file for file, one written
// directly. opts gives the codecs, the order recorded, the BM25
// parameters, the title weight (every input's) and Force; the merged index has positions if opts.Positions
// is set, which every input must then have, and stores what every input
// stores (the same for all of them). d stays locked.
func Merge(ctx context.Context, d *Dir, opts WriterOptions, inputs []MergeInput) error {
	_, err := merge(ctx, d, opts, inputs, false)
	return err
}

// MergeSegment is Merge into a segment: it writes the new generation and
// makes it durable but commits nothing, and returns the segment's
// meta.json value for CommitSegments. An input may be a segment of a
// segmented index (Index.Segments): its deleted documents must be Dropped.
func MergeSegment(ctx context.Context, d *Dir, opts WriterOptions, inputs []MergeInput) (Meta, error) {
	return merge(ctx, d, opts, inputs, true)
}

func merge(ctx context.Context, d *Dir, opts WriterOptions, inputs []MergeInput, segmentOnly bool) (Meta, error) {
	m, err := planMerge(inputs, opts.Positions, opts.TitleWeight)
	if err != nil {
		return Meta{}, err
	}
	w, err := d.newWriter(opts, m.docLens, m.urls, segmentOnly)
	if err != nil {
		return Meta{}, err
	}
	if m.store != StoreNone {
		err = w.mergeStore(d, m)
	}
	if err == nil {
		err = w.mergePostings(ctx, m)
	}
	if err == nil && m.sources != nil {
		err = w.AddSources(m.sourceOpts, m.sources)
	}
	if err != nil {
		w.Abort()
		return Meta{}, err
	}
	if err := w.Close(); err != nil {
		return Meta{}, err
	}
	return w.meta, nil
}

// mergePlan is a merge's document table: for each new docid, where it
// comes from, and the new documents' lengths, URLs and sources.
type mergePlan struct {
	inputs     []MergeInput
	from       []docRef // per new docid
	docLens    []uint32
	urls       []string
	store      string
	sources    []Source // nil when some input has none
	sourceOpts SourceOptions
}

// docRef is a document of an input.
type docRef struct {
	input int
	doc   uint32
}

// planMerge checks the inputs' maps and lays out the merged document
// table.
func planMerge(inputs []MergeInput, positions bool, titleWeight uint32) (*mergePlan, error) {
	m := &mergePlan{inputs: inputs, store: StoreNone}
	n := 0
	for i, in := range inputs {
		if len(in.DocMap) != in.Index.NumDocs() {
			return nil, fmt.Errorf("index: merge: input %d has %d documents and a map of %d", i, in.Index.NumDocs(), len(in.DocMap))
		}
		// A frequency already holds its title's weight: the merged index
		// can only record the weight its inputs were built with.
		if w := in.Index.Meta().TitleWeight; w != titleWeight {
			return nil, fmt.Errorf("index: merge: input %d (%s) has title weight %d, the merged index %d", i, in.Index.Dir(), w, titleWeight)
		}
		if positions && !in.Index.HasPositions() {
			return nil, fmt.Errorf("index: merge: input %d (%s) has no positions", i, in.Index.Dir())
		}
		if s := in.Index.Store(); i == 0 {
			m.store = s
		} else if s != m.store {
			return nil, fmt.Errorf("index: merge: input %d stores %s, input 0 %s", i, s, m.store)
		}
		if in.Index.texts != nil && in.Index.words == nil {
			return nil, fmt.Errorf("index: merge: input %d (%s) stores its text as format 4 did (texts.bin): rebuild it", i, in.Index.Dir())
		}
		for _, nd := range in.DocMap {
			if nd != Dropped {
				n++
			}
		}
	}
	m.from = make([]docRef, n)
	seen := make([]bool, n)
	for i, in := range inputs {
		for old, nd := range in.DocMap {
			if nd == Dropped {
				continue
			}
			if int64(nd) >= int64(n) || seen[nd] {
				return nil, fmt.Errorf("index: merge: input %d maps document %d to %d: out of range or taken (%d documents kept)", i, old, nd, n)
			}
			seen[nd] = true
			m.from[nd] = docRef{i, uint32(old)}
		}
	}
	m.docLens, m.urls = make([]uint32, n), make([]string, n)
	for nd, r := range m.from {
		ix := inputs[r.input].Index
		m.docLens[nd], m.urls[nd] = ix.DocLen(r.doc), ix.URL(r.doc)
	}
	return m, m.planSources()
}

// planSources lays out the merged index's sources from the inputs', if
// every input has them.
func (m *mergePlan) planSources() error {
	type placed struct {
		first uint32
		src   Source
	}
	var all []placed
	for i, in := range m.inputs {
		opts, srcs, ok := in.Index.Sources()
		if in.Sources != nil {
			srcs = in.Sources
		}
		if !ok {
			return nil
		}
		if i == 0 {
			m.sourceOpts = opts
		} else if opts != m.sourceOpts {
			return fmt.Errorf("index: merge: input %d was built with %+v, input 0 with %+v", i, opts, m.sourceOpts)
		}
		doc := uint32(0)
		for _, s := range srcs {
			if uint64(doc)+uint64(s.Docs) > uint64(len(in.DocMap)) {
				return fmt.Errorf("index: merge: input %d: its sources hold more documents than its %d", i, len(in.DocMap))
			}
			first := in.DocMap[doc]
			for k := range s.Docs {
				nd := in.DocMap[doc+k]
				if (first == Dropped) != (nd == Dropped) || (nd != Dropped && nd != first+k) {
					return fmt.Errorf("index: merge: input %d: the documents of %s are neither kept together in order nor dropped", i, s.URL)
				}
			}
			if first != Dropped {
				all = append(all, placed{first, s})
			}
			doc += s.Docs
		}
		if int(doc) != len(in.DocMap) {
			return fmt.Errorf("index: merge: input %d: its sources hold %d documents, it has %d", i, doc, len(in.DocMap))
		}
	}
	slices.SortFunc(all, func(a, b placed) int { return cmp.Compare(a.first, b.first) })
	m.sources = make([]Source, len(all))
	for i, p := range all {
		m.sources[i] = p.src
	}
	return nil
}

// mergeStore writes the merged document store: each document's title and
// text, cut as its input cut it, in new docid order.
func (w *Writer) mergeStore(d *Dir, m *mergePlan) error {
	tmp, err := d.TempDir("merge")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	sb, err := NewStoreBuilder(tmp, m.store)
	if err != nil {
		return err
	}
	defer sb.Close()
	titles := make([]blockCursor, len(m.inputs))
	for i, in := range m.inputs {
		titles[i].f = in.Index.titles
	}
	for _, r := range m.from {
		ix := m.inputs[r.input].Index
		var title []byte
		err := ix.Guard(func() (err error) {
			title, err = titles[r.input].record(r.doc)
			return err
		})
		if err == nil {
			err = sb.AddFrom(string(title), ix, r.doc)
		}
		if err != nil {
			return err
		}
	}
	return w.AddStore(sb)
}

// blockCursor reads a block file's records, keeping the last block it
// decoded: a merge reads each input's documents in increasing order.
type blockCursor struct {
	f           *blockFile
	b           *decodedBlock
	first, next uint32 // the decoded block's documents
}

// record returns document d's record.
func (c *blockCursor) record(d uint32) ([]byte, error) {
	if c.b == nil || d < c.first || d >= c.next {
		if d >= c.f.docs {
			return nil, fmt.Errorf("index: %s: no document %d (%d documents)", c.f.name, d, c.f.docs)
		}
		i := c.f.blockOf(d)
		first, next := c.f.span(i)
		// Decoded apart from the title cache: a merge reads every block
		// once.
		b, err := c.f.decode(i, next-first)
		if err != nil {
			return nil, err
		}
		c.b, c.first, c.next = b, first, next
	}
	return c.b.record(d - c.first), nil
}

// mergedPosting is one posting of a merged list: its new docid and
// frequency, and where its positions lie in the term's positions buffer.
type mergedPosting struct {
	doc, freq uint32
	pos       int
}

// mergePostings writes the union of the inputs' lexicons, in term order:
// each term's postings from every input, renumbered, dropped ones left
// out, in new docid order; a term left without postings is left out.
func (w *Writer) mergePostings(ctx context.Context, m *mergePlan) error {
	next := make([]int, len(m.inputs)) // each input's next term
	runs := make([][]mergedPosting, len(m.inputs))
	heads := make([]int, len(m.inputs)) // each run's next posting
	var pos, buf, docids, freqs, outPos []uint32
	withPos := w.positions != nil
	for n := 0; ; n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		term, found := "", false
		for i, in := range m.inputs {
			if next[i] < in.Index.NumTerms() {
				if t := in.Index.termString(next[i]); !found || t < term {
					term, found = t, true
				}
			}
		}
		if !found {
			return nil
		}
		term = strings.Clone(term) // the writer keeps it as the previous term
		pos = pos[:0]
		for i, in := range m.inputs {
			runs[i] = runs[i][:0]
			ix := in.Index
			if next[i] >= ix.NumTerms() || ix.termString(next[i]) != term {
				continue
			}
			// The list as it lies: a segment's deleted documents are
			// Dropped in its map.
			info := ix.rawInfo(next[i], term)
			next[i]++
			err := ix.Guard(func() error {
				c := ix.rawCursor(info)
				c.loadBlock(c.first)
				sorted := true
				for d := c.DocID(); d != NoMoreDocs; d = c.Next() {
					nd := in.DocMap[d]
					if nd == Dropped {
						continue
					}
					p := mergedPosting{doc: nd, freq: c.Freq(), pos: len(pos)}
					if withPos {
						var err error
						if buf, err = c.Positions(buf); err != nil {
							return err
						}
						pos = append(pos, buf...)
					}
					if k := len(runs[i]); k > 0 && runs[i][k-1].doc > nd {
						sorted = false
					}
					runs[i] = append(runs[i], p)
				}
				if !sorted {
					slices.SortFunc(runs[i], func(a, b mergedPosting) int { return cmp.Compare(a.doc, b.doc) })
				}
				return c.Err()
			})
			if err != nil {
				return err
			}
		}
		docids, freqs, outPos = docids[:0], freqs[:0], outPos[:0]
		clear(heads)
		for {
			best := -1
			for i, r := range runs {
				if heads[i] < len(r) && (best < 0 || r[heads[i]].doc < runs[best][heads[best]].doc) {
					best = i
				}
			}
			if best < 0 {
				break
			}
			p := runs[best][heads[best]]
			heads[best]++
			docids, freqs = append(docids, p.doc), append(freqs, p.freq)
			if withPos {
				outPos = append(outPos, pos[p.pos:p.pos+int(p.freq)]...)
			}
		}
		if len(docids) == 0 {
			continue
		}
		var err error
		if withPos {
			err = w.AddTermPositions(term, docids, freqs, outPos)
		} else {
			err = w.AddTerm(term, docids, freqs)
		}
		if err != nil {
			return err
		}
	}
}
