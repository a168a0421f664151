//go:build cuda

package gpu

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/gpusearch/gpusearch/analytics"
)

// ErrAnalyticsTask is returned for a task or traversal the GPU analytics
// engine does not run: it runs wordcount and sort top-down, invindex,
// termvector and rankedinv bottom-up, and not seqcount.
var ErrAnalyticsTask = errors.New("gpu: not supported by the GPU analytics engine")

const (
	analyticsCTA = 256  // threads per CTA of the analytics kernels
	chunkSymbols = 32   // root symbols per CTA of tadoc_files
	compactChunk = 2048 // pool slots per CTA of the compaction (COMPACT_CHUNK)
	emptySlot    = ^uint32(0)
)

var analyticsKernels = []string{
	"tadoc_root_weights", "tadoc_topdown_threads", "tadoc_topdown_groups",
	"tadoc_tables_threads", "tadoc_tables_groups", "tadoc_files",
	"tadoc_chunk_counts", "tadoc_compact", "tadoc_row_starts",
}

// AnalyticsCorpus is a compressed corpus resident on a device with its
// layout (rules by level) and its pools of hash tables, for analytics
// without decompression (kernels/analytics.cu).
type AnalyticsCorpus struct {
	d       *Device
	c       *analytics.Corpus
	layout  *analytics.Layout
	fns     map[string]cu.Function
	nchunks int

	ruleStart, body, root, rules, tableOff, fileOff, chunks *Buffer
	weight, counts, keys, vals, used, fkeys, fvals, errFlag *Buffer
}

// UploadCorpus computes c's layout, copies its grammar to the device and
// allocates the pools the tasks need; they stay resident until Free.
func (d *Device) UploadCorpus(c *analytics.Corpus) (*AnalyticsCorpus, error) {
	a := &AnalyticsCorpus{d: d, c: c, layout: analytics.NewLayout(c.Grammar, len(c.Dict)), fns: map[string]cu.Function{}}
	if err := d.do(a.loadKernels); err != nil {
		return nil, err
	}
	g, l := c.Grammar, a.layout
	// A root of rules gets few symbols per CTA, each a table to merge; a
	// root of words alone (an uncompressed corpus, Corpus.Plain) gets one
	// word per thread.
	per := uint32(chunkSymbols)
	if g.NumRules() == 0 {
		per = analyticsCTA
	}
	var chunks []uint32
	for f := range g.NumFiles() {
		for s := g.FileStart[f]; s < g.FileStart[f+1]; s += per {
			chunks = append(chunks, uint32(f), s, min(s+per, g.FileStart[f+1]))
		}
	}
	a.nchunks = len(chunks) / 3
	err := func() error {
		for _, u := range []struct {
			dst **Buffer
			src []uint32
		}{
			{&a.ruleStart, g.RuleStart}, {&a.body, g.Body}, {&a.root, g.Root},
			{&a.rules, l.Rules}, {&a.chunks, chunks},
		} {
			b, err := d.Alloc(4 * int64(len(u.src)))
			if err != nil {
				return err
			}
			*u.dst = b
			if err := b.WriteUint32s(u.src); err != nil {
				return err
			}
		}
		for _, u := range []struct {
			dst **Buffer
			src []uint64
		}{{&a.tableOff, l.TableOff}, {&a.fileOff, l.FileOff}} {
			b, err := d.Alloc(8 * int64(len(u.src)))
			if err != nil {
				return err
			}
			*u.dst = b
			if err := b.WriteUint64s(u.src); err != nil {
				return err
			}
		}
		ruleSlots, fileSlots := int64(l.TableOff[len(l.TableOff)-1]), int64(l.FileOff[len(l.FileOff)-1])
		for _, u := range []struct {
			dst  **Buffer
			size int64
		}{
			{&a.weight, 8 * int64(g.NumRules())}, {&a.counts, 8 * int64(len(c.Dict))},
			{&a.keys, 4 * ruleSlots}, {&a.vals, 4 * ruleSlots}, {&a.used, 4 * int64(g.NumRules())},
			{&a.fkeys, 4 * fileSlots}, {&a.fvals, 4 * fileSlots}, {&a.errFlag, 4},
		} {
			b, err := d.Alloc(u.size)
			if err != nil {
				return err
			}
			*u.dst = b
		}
		return nil
	}()
	if err != nil {
		a.Free()
		return nil, fmt.Errorf("gpu: upload corpus: %w", err)
	}
	return a, nil
}

// loadKernels loads kernels/analytics.ptx; it runs on the device goroutine.
func (a *AnalyticsCorpus) loadKernels() error {
	ptx, from, err := loadPTX("analytics")
	if err != nil {
		return err
	}
	mod, err := cu.LoadData(string(ptx))
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadPTX, from, err)
	}
	for _, name := range analyticsKernels {
		fn, err := mod.Function(name)
		if err != nil {
			return fmt.Errorf("%w: %s has no kernel %s: %v", ErrBadPTX, from, name, err)
		}
		a.fns[name] = fn
	}
	return nil
}

// Free releases the corpus's device memory.
func (a *AnalyticsCorpus) Free() error {
	var first error
	for _, b := range []*Buffer{a.ruleStart, a.body, a.root, a.rules, a.tableOff, a.fileOff, a.chunks,
		a.weight, a.counts, a.keys, a.vals, a.used, a.fkeys, a.fvals, a.errFlag} {
		if err := b.Free(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Run computes task on the device. Init is the time to clear the buffers,
// Kernels the device time of the launches, Traverse that plus copying the
// result back and assembling it.
func (a *AnalyticsCorpus) Run(ctx context.Context, task analytics.Task, opts analytics.Options) (*analytics.Result, error) {
	if _, err := analytics.ParseTask(string(task)); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &analytics.Result{Task: task, SeqLen: opts.SeqLen}
	var err error
	switch task {
	case analytics.WordCount, analytics.Sort:
		if opts.Traversal == analytics.BottomUp {
			return nil, fmt.Errorf("%w: %s bottom-up", ErrAnalyticsTask, task)
		}
		res.Traversal = analytics.TopDown
		err = a.wordCounts(res)
	case analytics.InvertedIndex, analytics.TermVector, analytics.RankedInvertedIndex:
		if opts.Traversal == analytics.TopDown {
			return nil, fmt.Errorf("%w: %s top-down", ErrAnalyticsTask, task)
		}
		res.Traversal = analytics.BottomUp
		err = a.tables(res)
	default:
		return nil, fmt.Errorf("%w: %s", ErrAnalyticsTask, task)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// launch starts kernel name with n work items of per threads each (1: a
// thread, 32: a warp); args are device pointers and integers. It runs on
// the device goroutine.
func (a *AnalyticsCorpus) launch(name string, n, per int, args ...uint64) error {
	if n == 0 {
		return nil
	}
	ptrs := make([]unsafe.Pointer, len(args))
	for i := range args {
		ptrs[i] = unsafe.Pointer(&args[i])
	}
	grid := (n*per + analyticsCTA - 1) / analyticsCTA
	if err := a.fns[name].Launch(grid, 1, 1, analyticsCTA, 1, 1, 0, cu.Stream{}, ptrs); err != nil {
		return fmt.Errorf("gpu: launch %s: %w", name, err)
	}
	return nil
}

// levelRules returns the device pointer and count of level l's thread
// rules (group false) or group rules (group true).
func (a *AnalyticsCorpus) levelRules(l int, group bool) (uint64, int) {
	i := 2 * l
	if group {
		i++
	}
	from, to := a.layout.LevelStart[i], a.layout.LevelStart[i+1]
	return uint64(a.rules.ptr) + 4*uint64(from), int(to - from)
}

// wordCounts runs the top-down word count.
func (a *AnalyticsCorpus) wordCounts(res *analytics.Result) error {
	start := time.Now()
	for _, b := range []*Buffer{a.weight, a.counts} {
		if err := b.Fill32(0); err != nil {
			return err
		}
	}
	res.Init = time.Since(start)
	start = time.Now()
	ruleStart, body, weight, counts := uint64(a.ruleStart.ptr), uint64(a.body.ptr), uint64(a.weight.ptr), uint64(a.counts.ptr)
	var err error
	res.Kernels, err = a.d.timed(func() error {
		g := a.c.Grammar
		if err := a.launch("tadoc_root_weights", len(g.Root), 1, uint64(a.root.ptr), uint64(len(g.Root)), weight, counts); err != nil {
			return err
		}
		for l := a.layout.Levels - 1; l >= 0; l-- {
			rules, n := a.levelRules(l, false)
			if err := a.launch("tadoc_topdown_threads", n, 1, rules, uint64(n), ruleStart, body, weight, counts); err != nil {
				return err
			}
			rules, n = a.levelRules(l, true)
			if err := a.launch("tadoc_topdown_groups", n, 32, rules, uint64(n), ruleStart, body, weight, counts); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	res.Counts = make([]uint64, len(a.c.Dict))
	if err := a.counts.readUint64s(res.Counts); err != nil {
		return err
	}
	res.Traverse = time.Since(start)
	return nil
}

// tables runs the bottom-up per-document word tables.
func (a *AnalyticsCorpus) tables(res *analytics.Result) error {
	start := time.Now()
	for _, f := range []struct {
		b *Buffer
		v uint32
	}{{a.keys, emptySlot}, {a.vals, 0}, {a.used, 0}, {a.fkeys, emptySlot}, {a.fvals, 0}, {a.errFlag, 0}} {
		if err := f.b.Fill32(f.v); err != nil {
			return err
		}
	}
	res.Init = time.Since(start)
	start = time.Now()
	ruleStart, body, tableOff := uint64(a.ruleStart.ptr), uint64(a.body.ptr), uint64(a.tableOff.ptr)
	keys, vals, used, errFlag := uint64(a.keys.ptr), uint64(a.vals.ptr), uint64(a.used.ptr), uint64(a.errFlag.ptr)
	var err error
	res.Kernels, err = a.d.timed(func() error {
		for l := range a.layout.Levels {
			rules, n := a.levelRules(l, false)
			if err := a.launch("tadoc_tables_threads", n, 1, rules, uint64(n), ruleStart, body, tableOff, keys, vals, used, errFlag); err != nil {
				return err
			}
			rules, n = a.levelRules(l, true)
			if err := a.launch("tadoc_tables_groups", n, 32, rules, uint64(n), ruleStart, body, tableOff, keys, vals, used, errFlag); err != nil {
				return err
			}
		}
		return a.launch("tadoc_files", a.nchunks, analyticsCTA, uint64(a.chunks.ptr), uint64(a.nchunks), uint64(a.root.ptr),
			tableOff, keys, vals, used, uint64(a.fileOff.ptr), uint64(a.fkeys.ptr), uint64(a.fvals.ptr), errFlag)
	})
	if err != nil {
		return err
	}
	flag := make([]uint32, 1)
	if err := a.errFlag.ReadUint32s(flag); err != nil {
		return err
	}
	if flag[0] != 0 {
		return errors.New("gpu: a hash table ran out of slots (its bound is wrong)")
	}
	m, compactTime, err := a.compact()
	if err != nil {
		return err
	}
	res.Kernels += compactTime
	// The host's part uses every core: the transposes and the ranking split
	// the rows among goroutines.
	workers := runtime.GOMAXPROCS(0)
	switch res.Task {
	case analytics.TermVector:
		// Two counting-sort transposes sort every row by word in linear
		// time, where sorting each row would compare.
		res.Vectors = m.ParallelTranspose(len(a.c.Dict), workers).ParallelTranspose(m.Rows(), workers)
	default:
		res.Postings = m.ParallelTranspose(len(a.c.Dict), workers)
		if res.Task == analytics.RankedInvertedIndex {
			res.Postings.ParallelRank(workers)
		}
	}
	res.Traverse = time.Since(start)
	return nil
}

// compact gathers the document pool's filled slots, in pool order, into a
// CSR matrix with one row per document, on the device, and copies only
// those back: counts per chunk of slots (tadoc_chunk_counts), each chunk's
// output base from them on the host, then the ordered writes
// (tadoc_compact) and each document's first position (tadoc_row_starts).
// It returns the matrix and the device time of its launches.
func (a *AnalyticsCorpus) compact() (*analytics.Matrix, time.Duration, error) {
	off := a.layout.FileOff
	slots, files := off[len(off)-1], len(off)-1
	nchunks := int((slots + compactChunk - 1) / compactChunk)
	var counts, base, rowStart, outKeys, outVals *Buffer
	defer func() {
		for _, b := range []*Buffer{counts, base, rowStart, outKeys, outVals} {
			b.Free() // nil-safe
		}
	}()
	var err error
	if counts, err = a.d.Alloc(4 * int64(nchunks)); err != nil {
		return nil, 0, err
	}
	fkeys, fvals := uint64(a.fkeys.ptr), uint64(a.fvals.ptr)
	countTime, err := a.d.timed(func() error {
		return a.launch("tadoc_chunk_counts", nchunks, analyticsCTA, fkeys, slots, uint64(counts.ptr))
	})
	if err != nil {
		return nil, 0, err
	}
	n := make([]uint32, nchunks)
	if err := counts.ReadUint32s(n); err != nil {
		return nil, 0, err
	}
	bases := make([]uint64, nchunks+1)
	for c, k := range n {
		bases[c+1] = bases[c] + uint64(k)
	}
	filled := bases[nchunks]
	for _, u := range []struct {
		dst  **Buffer
		size int64
	}{{&base, 8 * int64(nchunks+1)}, {&rowStart, 8 * int64(files+1)}, {&outKeys, 4 * int64(filled)}, {&outVals, 4 * int64(filled)}} {
		if *u.dst, err = a.d.Alloc(u.size); err != nil {
			return nil, 0, err
		}
	}
	if err := base.WriteUint64s(bases); err != nil {
		return nil, 0, err
	}
	compactTime, err := a.d.timed(func() error {
		if err := a.launch("tadoc_compact", nchunks, analyticsCTA, fkeys, fvals, slots, uint64(base.ptr),
			uint64(outKeys.ptr), uint64(outVals.ptr)); err != nil {
			return err
		}
		return a.launch("tadoc_row_starts", files+1, 1, uint64(a.fileOff.ptr), uint64(files), fkeys,
			uint64(base.ptr), uint64(rowStart.ptr))
	})
	if err != nil {
		return nil, 0, err
	}
	m := &analytics.Matrix{Start: make([]int, files+1), Col: make([]uint32, filled), Val: make([]uint32, filled)}
	starts := make([]uint64, files+1)
	if err := rowStart.readUint64s(starts); err != nil {
		return nil, 0, err
	}
	for f, s := range starts {
		m.Start[f] = int(s)
	}
	if err := outKeys.ReadUint32s(m.Col); err != nil {
		return nil, 0, err
	}
	if err := outVals.ReadUint32s(m.Val); err != nil {
		return nil, 0, err
	}
	if m.Start[0] != 0 || m.Start[files] != int(filled) {
		return nil, 0, fmt.Errorf("gpu: compaction gave rows %d..%d for %d entries", m.Start[0], m.Start[files], filled)
	}
	return m, countTime + compactTime, nil
}

// readUint64s copies the start of the buffer into dst.
func (b *Buffer) readUint64s(dst []uint64) error {
	n := 8 * int64(len(dst))
	if n > b.size {
		return fmt.Errorf("gpu: read of %d bytes from a %d-byte buffer", n, b.size)
	}
	if n == 0 {
		return nil
	}
	return b.d.do(func() error { return cu.MemcpyDtoH(unsafe.Pointer(&dst[0]), b.ptr, n) })
}
