package gpu

import (
	"fmt"
	"time"

	"github.com/gpusearch/gpusearch/analytics"
	"github.com/gpusearch/gpusearch/internal/cuda"
)

// seqPools holds what seqcount needs on the device for one sequence
// length: its layout (levels and table bounds for sequences), each rule's
// head and tail buffers, and pools of hash tables with 64-bit keys.
type seqPools struct {
	layout                                                 *analytics.SeqLayout
	rules, lens, head, tail, hlen, tlen, tableOff, fileOff *cuda.Buffer
	keys, vals, used, fkeys, fvals                         *cuda.Buffer
}

// free releases the pools; a nil s has none.
func (s *seqPools) free() error {
	if s == nil {
		return nil
	}
	return cuda.FreeAll(s.rules, s.lens, s.head, s.tail, s.hlen, s.tlen, s.tableOff, s.fileOff,
		s.keys, s.vals, s.used, s.fkeys, s.fvals)
}

// seqPoolsFor returns the pools for l-word sequences, computing the layout
// and uploading it on the first run with that length (the previous
// length's pools are freed).
func (a *Corpus) seqPoolsFor(l int) (*seqPools, error) {
	if a.seq != nil && a.seq.layout.SeqLen == l {
		return a.seq, nil
	}
	if err := a.seq.free(); err != nil {
		return nil, err
	}
	a.seq = nil
	if l > MaxGPUSeqLen {
		return nil, fmt.Errorf("%w: sequences of %d words (at most %d)", ErrAnalyticsTask, l, MaxGPUSeqLen)
	}
	g := a.c.Grammar
	layout, err := analytics.NewSeqLayout(g, len(a.c.Dict), a.c.RuleLengths(), l)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAnalyticsTask, err)
	}
	s := &seqPools{layout: layout}
	err = func() error {
		for _, u := range []struct {
			dst **cuda.Buffer
			src []uint32
		}{{&s.rules, layout.Rules}, {&s.head, layout.Head}, {&s.tail, layout.Tail}, {&s.hlen, layout.HeadLen}, {&s.tlen, layout.TailLen}} {
			var err error
			if *u.dst, err = cuda.Upload(a.d, u.src); err != nil {
				return err
			}
		}
		for _, u := range []struct {
			dst **cuda.Buffer
			src []uint64
		}{{&s.lens, a.c.RuleLengths()}, {&s.tableOff, layout.TableOff}, {&s.fileOff, layout.FileOff}} {
			var err error
			if *u.dst, err = cuda.Upload(a.d, u.src); err != nil {
				return err
			}
		}
		ruleSlots, fileSlots := int64(layout.TableOff[len(layout.TableOff)-1]), int64(layout.FileOff[len(layout.FileOff)-1])
		for _, u := range []struct {
			dst  **cuda.Buffer
			size int64
		}{
			{&s.keys, 8 * ruleSlots}, {&s.vals, 4 * ruleSlots}, {&s.used, 4 * int64(g.NumRules())},
			{&s.fkeys, 8 * fileSlots}, {&s.fvals, 4 * fileSlots},
		} {
			var err error
			if *u.dst, err = a.d.Alloc(u.size); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		s.free()
		return nil, fmt.Errorf("gpu: seqcount pools: %w", err)
	}
	a.seq = s
	return s, nil
}

// seqCounts runs the per-document sequence tables, bottom-up or top-down
// (res.Traversal); bottom-up, on the upload bottomUp returns. Init
// includes preparing the pools when this is the first run with this
// sequence length.
func (a *Corpus) seqCounts(res *analytics.Result) error {
	start := time.Now()
	s, err := a.seqPoolsFor(res.SeqLen)
	if err != nil {
		return err
	}
	clear, zero := []*cuda.Buffer{s.fkeys}, []*cuda.Buffer{s.fvals, a.errFlag}
	launches := func() error { return a.bottomUpSeqs(s) }
	if res.Traversal == analytics.TopDown {
		td, err := a.topDownPools(false)
		if err != nil {
			return err
		}
		zero = append(zero, td.weight)
		launches = func() error { return a.topDownSeqs(s, td) }
	} else {
		clear, zero = append(clear, s.keys), append(zero, s.vals, s.used)
	}
	if start, err = a.clearAndLaunch(res, start, clear, zero, launches); err != nil {
		return err
	}
	l := s.layout
	if err := a.checkFlag(); err != nil {
		return err
	}
	rows, compactTime, err := compact[uint64](a, filePool{l.FileOff, s.fileOff, s.fkeys, s.fvals})
	if err != nil {
		return err
	}
	var sortTime time.Duration
	res.Vectors, res.Seqs, sortTime, err = a.assembleSeqs(l, rows)
	if err != nil {
		return err
	}
	res.Kernels += compactTime + sortTime
	res.Traverse = time.Since(start)
	return nil
}

// seqs is what describes the sequences to the kernels: each rule's length,
// head and tail and their lengths (pointers), the sequence length and the
// bits of a word in a packed key.
type seqs struct {
	lens, head, tail, hlen, tlen devPtr
	l, bits                      uint64
}

// seqs returns the pools' sequences.
func (s *seqPools) seqs() seqs {
	return seqs{ptr(s.lens), ptr(s.head), ptr(s.tail), ptr(s.hlen), ptr(s.tlen),
		uint64(s.layout.SeqLen), uint64(s.layout.Bits)}
}

// bottomUpSeqs launches the bottom-up sequence tables: rule tables level
// by level from the bottom, then the documents' tables from them.
func (a *Corpus) bottomUpSeqs(s *seqPools) error {
	q := s.seqs()
	tableOff, keys, vals, used := ptr(s.tableOff), ptr(s.keys), ptr(s.vals), ptr(s.used)
	errFlag := ptr(a.errFlag)
	for l := range s.layout.Levels {
		lv := levelOf(s.layout.Layout, s.rules, l)
		if err := launchTadocSeqTablesLevel(a, lv.grid, analyticsCTA, lv.rules, lv.nt, lv.ng, lv.nb,
			ptr(a.ruleStart), ptr(a.body), q.lens, q.head, q.tail, q.hlen, q.tlen, q.l, q.bits,
			tableOff, keys, vals, used, errFlag); err != nil {
			return err
		}
	}
	return launchTadocSeqFiles(a, a.nchunks, analyticsCTA, ptr(a.chunks), uint64(a.nchunks), ptr(a.root), ptr(a.fileStart),
		q.lens, q.head, q.tail, q.hlen, q.tlen, q.l, q.bits,
		tableOff, keys, vals, used, ptr(s.fileOff), ptr(s.fkeys), ptr(s.fvals), errFlag)
}

// topDownSeqs launches the top-down sequence tables: the documents' own
// windows and the weights of the rules their roots name, then levels from
// the top down, each rule putting its own windows, times its weight, into
// the tables of the documents it occurs in.
func (a *Corpus) topDownSeqs(s *seqPools, td *topDownPools) error {
	q := s.seqs()
	weight, files := ptr(td.weight), uint64(a.c.Grammar.NumFiles())
	fileOff, fkeys, fvals, errFlag := ptr(s.fileOff), ptr(s.fkeys), ptr(s.fvals), ptr(a.errFlag)
	if err := launchTadocSeqTdFiles(a, a.nchunks, analyticsCTA, ptr(a.chunks), uint64(a.nchunks), ptr(a.root), ptr(a.fileStart),
		q.lens, q.head, q.tail, q.hlen, q.tlen, q.l, q.bits,
		weight, files, fileOff, fkeys, fvals, errFlag); err != nil {
		return err
	}
	for l := s.layout.Levels - 1; l >= 0; l-- {
		lv := levelOf(s.layout.Layout, s.rules, l)
		if err := launchTadocSeqTdLevel(a, lv.grid, analyticsCTA, lv.rules, lv.nt, lv.ng, lv.nb,
			ptr(a.ruleStart), ptr(a.body), q.lens, q.head, q.tail, q.hlen, q.tlen, q.l, q.bits,
			weight, files, fileOff, fkeys, fvals, errFlag); err != nil {
			return err
		}
	}
	return nil
}
