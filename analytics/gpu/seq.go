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
	rows, compactTime, err := compact[uint64](a, filePool{"tadoc_seq_", l.FileOff, s.fileOff, s.fkeys, s.fvals})
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

// seqArgs are the kernels' arguments that describe the sequences.
func (s *seqPools) seqArgs() []uint64 {
	return []uint64{s.lens.Ptr(), s.head.Ptr(), s.tail.Ptr(), s.hlen.Ptr(), s.tlen.Ptr(),
		uint64(s.layout.SeqLen), uint64(s.layout.Bits)}
}

// bottomUpSeqs launches the bottom-up sequence tables: rule tables level
// by level from the bottom, then the documents' tables from them.
func (a *Corpus) bottomUpSeqs(s *seqPools) error {
	tables := []uint64{s.tableOff.Ptr(), s.keys.Ptr(), s.vals.Ptr(), s.used.Ptr()}
	errFlag := a.errFlag.Ptr()
	level := append(append(append([]uint64{a.ruleStart.Ptr(), a.body.Ptr()}, s.seqArgs()...), tables...), errFlag)
	for lv := range s.layout.Levels {
		if err := a.launchLevel(s.layout.Layout, s.rules, lv, "tadoc_seq_tables_level", level...); err != nil {
			return err
		}
	}
	args := append([]uint64{a.chunks.Ptr(), uint64(a.nchunks), a.root.Ptr(), a.fileStart.Ptr()}, s.seqArgs()...)
	args = append(append(args, tables...), s.fileOff.Ptr(), s.fkeys.Ptr(), s.fvals.Ptr(), errFlag)
	return a.launch("tadoc_seq_files", a.nchunks, analyticsCTA, args...)
}

// topDownSeqs launches the top-down sequence tables: the documents' own
// windows and the weights of the rules their roots name, then levels from
// the top down, each rule putting its own windows, times its weight, into
// the tables of the documents it occurs in.
func (a *Corpus) topDownSeqs(s *seqPools, td *topDownPools) error {
	docs := []uint64{td.weight.Ptr(), uint64(a.c.Grammar.NumFiles()), s.fileOff.Ptr(), s.fkeys.Ptr(),
		s.fvals.Ptr(), a.errFlag.Ptr()}
	args := append([]uint64{a.chunks.Ptr(), uint64(a.nchunks), a.root.Ptr(), a.fileStart.Ptr()}, s.seqArgs()...)
	if err := a.launch("tadoc_seq_td_files", a.nchunks, analyticsCTA, append(args, docs...)...); err != nil {
		return err
	}
	level := append(append([]uint64{a.ruleStart.Ptr(), a.body.Ptr()}, s.seqArgs()...), docs...)
	for lv := s.layout.Levels - 1; lv >= 0; lv-- {
		if err := a.launchLevel(s.layout.Layout, s.rules, lv, "tadoc_seq_td_level", level...); err != nil {
			return err
		}
	}
	return nil
}
