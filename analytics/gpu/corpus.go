package gpu

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/gpusearch/gpusearch/analytics"
	"github.com/gpusearch/gpusearch/internal/cuda"
)

const (
	compactChunk = 2048 // pool slots per CTA of the compaction (COMPACT_CHUNK)
	emptySlot    = ^uint32(0)
)

// Corpus is a compressed corpus resident on a device with its
// layout (rules by level) and its pools of hash tables, for analytics
// without decompression (kernels/analytics.cu). One goroutine at a time
// may run tasks on it: runs share its pools and scratch buffers.
type Corpus struct {
	d       *cuda.Device
	c       *analytics.Corpus
	layout  *analytics.Layout
	mod     *cuda.Module // kernels/analytics.ptx
	nchunks int
	// wordTables: the word pools are allocated, and bottom-up tables run
	// on this upload itself (bottomUp).
	wordTables bool

	ruleStart, body, root, fileStart, rules, tableOff, fileOff, chunks *cuda.Buffer
	weight, counts, keys, vals, used, fkeys, fvals, errFlag            *cuda.Buffer

	seq  *seqPools               // seqcount's, for the last sequence length run
	td   *topDownPools           // top-down's, once a task has run top-down
	text *textInput              // the text each run starts from (UploadText), or nil
	bu   *Corpus                 // the inlined grammar for bottom-up tables, once made (bottomUp)
	tmp  map[string]*cuda.Buffer // scratch buffers by name (scratch)
}

// UploadCorpus computes c's layout, copies its grammar to the device and
// allocates the pools the tasks need; they stay resident until Free.
// Bottom-up tables (invindex, termvector, rankedinv and seqcount) on a
// corpus with rules run on a second copy of the grammar, with only the
// rules that pay for a table (Corpus.Inlined), made by Prepare or the first
// run that needs it; word counts and top-down run on c's.
func (d *Device) UploadCorpus(c *analytics.Corpus) (*Corpus, error) {
	mod, err := d.c.Load(kernelFS, "analytics", analyticsKernels)
	if err != nil {
		return nil, err
	}
	return uploadCorpus(d.c, c, mod, c.Grammar.NumRules() == 0)
}

// Prepare readies what runs of task with opts need beyond the upload: for
// bottom-up tables on a corpus with rules, the inlined grammar, computed
// (a few hundred milliseconds on a large corpus) and uploaded once. Run
// prepares too; calling Prepare first keeps that cost out of the first
// run's time, and a corpus that only ever counts words never pays it.
func (a *Corpus) Prepare(task analytics.Task, opts analytics.Options) error {
	if _, err := analytics.ParseTask(string(task)); err != nil {
		return err
	}
	opts, err := opts.WithDefaults()
	if err != nil {
		return err
	}
	if task == analytics.WordCount || task == analytics.Sort {
		return nil
	}
	trav, err := a.traversal(task, opts.Traversal)
	if err != nil || trav != analytics.BottomUp {
		return err
	}
	_, err = a.bottomUp()
	return err
}

// bottomUp returns the upload that bottom-up tables run on: a itself when
// it has its own word pools (a corpus without rules, or the inlined
// upload), else the inlined grammar's upload, made on first use.
func (a *Corpus) bottomUp() (*Corpus, error) {
	if a.wordTables {
		return a, nil
	}
	if a.bu == nil {
		in, err := a.c.Inlined()
		if err != nil {
			return nil, err
		}
		if a.bu, err = uploadCorpus(a.d, in, a.mod, true); err != nil {
			return nil, err
		}
	}
	return a.bu, nil
}

// uploadCorpus uploads c to d with the kernels mod; the pools of the
// bottom-up word tables only if wordTables.
func uploadCorpus(d *cuda.Device, c *analytics.Corpus, mod *cuda.Module, wordTables bool) (*Corpus, error) {
	a := &Corpus{d: d, c: c, layout: c.TableLayout(), mod: mod, wordTables: wordTables, tmp: map[string]*cuda.Buffer{}}
	g, l := c.Grammar, a.layout
	chunks := rootChunks(g)
	a.nchunks = len(chunks) / 3
	err := func() error {
		for _, u := range []struct {
			dst **cuda.Buffer
			src []uint32
		}{
			{&a.ruleStart, g.RuleStart}, {&a.body, g.Body}, {&a.root, g.Root},
			{&a.fileStart, g.FileStart}, {&a.rules, l.Rules}, {&a.chunks, chunks},
		} {
			var err error
			if *u.dst, err = cuda.Upload(d, u.src); err != nil {
				return err
			}
		}
		for _, u := range []struct {
			dst **cuda.Buffer
			src []uint64
		}{{&a.tableOff, l.TableOff}, {&a.fileOff, l.FileOff}} {
			var err error
			if *u.dst, err = cuda.Upload(d, u.src); err != nil {
				return err
			}
		}
		var ruleSlots, fileSlots int64
		if wordTables {
			ruleSlots, fileSlots = int64(l.TableOff[len(l.TableOff)-1]), int64(l.FileOff[len(l.FileOff)-1])
		}
		for _, u := range []struct {
			dst  **cuda.Buffer
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

// Free releases the corpus's device memory.
func (a *Corpus) Free() error {
	first := a.seq.free()
	for _, err := range []error{a.td.free(), a.text.free()} {
		if err != nil && first == nil {
			first = err
		}
	}
	if a.bu != nil {
		if err := a.bu.Free(); err != nil && first == nil {
			first = err
		}
	}
	for name, b := range a.tmp {
		if err := b.Free(); err != nil && first == nil {
			first = err
		}
		delete(a.tmp, name)
	}
	a.seq, a.td, a.text, a.bu = nil, nil, nil, nil
	if err := cuda.FreeAll(a.ruleStart, a.body, a.root, a.fileStart, a.rules, a.tableOff, a.fileOff, a.chunks,
		a.weight, a.counts, a.keys, a.vals, a.used, a.fkeys, a.fvals, a.errFlag); err != nil && first == nil {
		first = err
	}
	return first
}

// Run computes task on the device. Init is the time to clear the buffers
// (and to prepare, if Prepare was not called first: see there), Kernels
// the device time of the launches, Traverse that plus copying the
// result back and assembling it (and, after UploadText, reading the text).
func (a *Corpus) Run(ctx context.Context, task analytics.Task, opts analytics.Options) (*analytics.Result, error) {
	if _, err := analytics.ParseTask(string(task)); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts, err := opts.WithDefaults()
	if err != nil {
		return nil, err
	}
	prepareStart := time.Now()
	if err := a.Prepare(task, opts); err != nil {
		return nil, err
	}
	prepare := time.Since(prepareStart)
	var textTime, textKernels time.Duration
	if a.text != nil {
		start := time.Now()
		if textKernels, err = a.text.tokenize(a); err != nil {
			return nil, err
		}
		textTime = time.Since(start)
	}
	res := &analytics.Result{Task: task, SeqLen: opts.SeqLen}
	switch task {
	case analytics.WordCount, analytics.Sort:
		if opts.Traversal == analytics.BottomUp {
			return nil, fmt.Errorf("%w: %s bottom-up", ErrAnalyticsTask, task)
		}
		res.Traversal = analytics.TopDown
		err = a.wordCounts(res)
	case analytics.InvertedIndex, analytics.TermVector, analytics.RankedInvertedIndex, analytics.SeqCount:
		if res.Traversal, err = a.traversal(task, opts.Traversal); err != nil {
			return nil, err
		}
		on := a // the upload the tables are built on
		if res.Traversal == analytics.BottomUp {
			if on, err = a.bottomUp(); err != nil { // made by Prepare above
				return nil, err
			}
		}
		if task == analytics.SeqCount {
			err = on.seqCounts(res)
		} else {
			err = on.tables(res)
		}
	default:
		return nil, fmt.Errorf("%w: %s", ErrAnalyticsTask, task)
	}
	if err != nil {
		return nil, err
	}
	res.Init += prepare
	if a.text != nil {
		start := time.Now()
		if err := a.text.check(); err != nil {
			return nil, err
		}
		res.Traverse += textTime + time.Since(start)
		res.Kernels += textKernels
	}
	return res, nil
}

// wordCounts runs the top-down word count.
func (a *Corpus) wordCounts(res *analytics.Result) error {
	start := time.Now()
	for _, b := range []*cuda.Buffer{a.weight, a.counts} {
		if err := b.Fill32(0); err != nil {
			return err
		}
	}
	res.Init = time.Since(start)
	start = time.Now()
	ruleStart, body, weight, counts := ptr(a.ruleStart), ptr(a.body), ptr(a.weight), ptr(a.counts)
	var err error
	res.Kernels, err = a.d.Timed(func() error {
		nroot := len(a.c.Grammar.Root)
		if err := launchTadocRootWeights(a, gridOf(nroot, 1), analyticsCTA, ptr(a.root), uint64(nroot), weight, counts); err != nil {
			return err
		}
		for l := a.layout.Levels - 1; l >= 0; l-- {
			lv := levelOf(a.layout, a.rules, l)
			if err := launchTadocTopdownLevel(a, lv.grid, analyticsCTA, lv.rules, lv.nt, lv.ng, lv.nb,
				ruleStart, body, weight, counts); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	res.Counts = make([]uint64, len(a.c.Dict))
	if err := cuda.Read(a.counts, res.Counts); err != nil {
		return err
	}
	res.Traverse = time.Since(start)
	return nil
}

// tables runs the per-document word tables, bottom-up or top-down
// (res.Traversal); bottom-up, on the upload bottomUp returns.
func (a *Corpus) tables(res *analytics.Result) error {
	start := time.Now()
	pool := filePool{a.layout.FileOff, a.fileOff, a.fkeys, a.fvals}
	clear := []*cuda.Buffer{a.keys, a.fkeys}
	zero := []*cuda.Buffer{a.vals, a.used, a.fvals, a.errFlag}
	launches := a.bottomUpTables
	if res.Traversal == analytics.TopDown {
		td, err := a.topDownPools(true)
		if err != nil {
			return err
		}
		pool = filePool{td.fileOff, td.off, td.keys, td.vals}
		clear, zero = []*cuda.Buffer{td.keys}, []*cuda.Buffer{td.vals, td.weight, a.errFlag}
		launches = func() error { return a.topDownTables(td) }
	}
	start, err := a.clearAndLaunch(res, start, clear, zero, launches)
	if err != nil {
		return err
	}
	if err := a.checkFlag(); err != nil {
		return err
	}
	rows, compactTime, err := compact[uint32](a, pool)
	if err != nil {
		return err
	}
	res.Kernels += compactTime
	m, sortTime, err := a.assemble(res.Task, rows)
	if err != nil {
		return err
	}
	res.Kernels += sortTime
	if res.Task == analytics.TermVector {
		res.Vectors = m
	} else {
		res.Postings = m
	}
	res.Traverse = time.Since(start)
	return nil
}

// clearAndLaunch sets every 32-bit word of the clear buffers to an empty
// slot and of the zero buffers to 0, records the time since start as
// res.Init, then runs launches, their device time in res.Kernels. It
// returns when it started the launches.
func (a *Corpus) clearAndLaunch(res *analytics.Result, start time.Time, clear, zero []*cuda.Buffer, launches func() error) (time.Time, error) {
	for _, f := range []struct {
		bufs []*cuda.Buffer
		v    uint32
	}{{clear, emptySlot}, {zero, 0}} {
		for _, b := range f.bufs {
			if err := b.Fill32(f.v); err != nil {
				return start, err
			}
		}
	}
	res.Init = time.Since(start)
	start = time.Now()
	var err error
	res.Kernels, err = a.d.Timed(launches)
	return start, err
}

// bottomUpTables launches the bottom-up word tables: rule tables level by
// level from the bottom, then the documents' tables from them.
func (a *Corpus) bottomUpTables() error {
	ruleStart, body, tableOff := ptr(a.ruleStart), ptr(a.body), ptr(a.tableOff)
	keys, vals, used, errFlag := ptr(a.keys), ptr(a.vals), ptr(a.used), ptr(a.errFlag)
	for l := range a.layout.Levels {
		lv := levelOf(a.layout, a.rules, l)
		if err := launchTadocTablesLevel(a, lv.grid, analyticsCTA, lv.rules, lv.nt, lv.ng, lv.nb,
			ruleStart, body, tableOff, keys, vals, used, errFlag); err != nil {
			return err
		}
	}
	return launchTadocFiles(a, a.nchunks, analyticsCTA, ptr(a.chunks), uint64(a.nchunks), ptr(a.root),
		ptr(a.fileStart), tableOff, keys, vals, used, ptr(a.fileOff), ptr(a.fkeys), ptr(a.fvals), errFlag)
}

// topDownTables launches the top-down word tables: the documents' own
// words and the weights of the rules their roots name, then levels from
// the top down, each rule putting its words into the dense tables of the
// documents it occurs in.
func (a *Corpus) topDownTables(td *topDownPools) error {
	files, words := uint64(a.c.Grammar.NumFiles()), uint64(len(a.c.Dict))
	weight, keys, vals := ptr(td.weight), ptr(td.keys), ptr(td.vals)
	if err := launchTadocTdFiles(a, a.nchunks, analyticsCTA, ptr(a.chunks), uint64(a.nchunks), ptr(a.root),
		ptr(a.fileStart), weight, files, keys, vals, words); err != nil {
		return err
	}
	for l := a.layout.Levels - 1; l >= 0; l-- {
		lv := levelOf(a.layout, a.rules, l)
		if err := launchTadocTdLevel(a, lv.grid, analyticsCTA, lv.rules, lv.nt, lv.ng, lv.nb,
			ptr(a.ruleStart), ptr(a.body), weight, files, keys, vals, words); err != nil {
			return err
		}
	}
	return nil
}

// Top-down per-document tables keep a weight per (rule, document) and, for
// word tasks, a dense table per document: topDownMaxEntries bounds each
// (rules x documents, words x documents). Auto takes top-down when it fits
// and the documents are at most topDownFiles, the paper's case for it
// (few long files), bottom-up otherwise.
const (
	topDownMaxEntries = 1 << 27
	topDownFiles      = 64
)

// traversal returns the traversal of a per-document task: the one asked
// for, or Auto's choice.
func (a *Corpus) traversal(task analytics.Task, asked analytics.Traversal) (analytics.Traversal, error) {
	g := a.c.Grammar
	files := uint64(g.NumFiles())
	fits := files*uint64(g.NumRules()) <= topDownMaxEntries &&
		(task == analytics.SeqCount || files*uint64(len(a.c.Dict)) <= topDownMaxEntries)
	switch {
	case asked == analytics.BottomUp, asked == analytics.Auto && (!fits || files > topDownFiles):
		return analytics.BottomUp, nil
	case !fits:
		return 0, fmt.Errorf("%w: %s top-down over %d documents, %d rules and %d words (at most %d weights or table slots)",
			ErrAnalyticsTask, task, files, g.NumRules(), len(a.c.Dict), topDownMaxEntries)
	}
	return analytics.TopDown, nil
}

// topDownPools holds top-down's buffers: the (rule, document) weights
// and, once a word task has run top-down, the dense word tables (document
// f's slots are fileOff[f] = f x words onwards; off holds fileOff).
type topDownPools struct {
	weight          *cuda.Buffer
	fileOff         []uint64
	off, keys, vals *cuda.Buffer
}

// topDownPools returns the corpus's top-down buffers, allocating them on
// first use (the dense word tables only when words is set).
func (a *Corpus) topDownPools(words bool) (*topDownPools, error) {
	g := a.c.Grammar
	if a.td == nil {
		w, err := a.d.Alloc(4 * int64(g.NumRules()) * int64(g.NumFiles()))
		if err != nil {
			return nil, fmt.Errorf("gpu: top-down weights: %w", err)
		}
		a.td = &topDownPools{weight: w}
	}
	td := a.td
	if !words || td.keys != nil {
		return td, nil
	}
	n := uint64(len(a.c.Dict))
	td.fileOff = make([]uint64, g.NumFiles()+1)
	for f := range td.fileOff {
		td.fileOff[f] = uint64(f) * n
	}
	slots := int64(td.fileOff[g.NumFiles()])
	var err error
	if td.off, err = cuda.Upload(a.d, td.fileOff); err == nil {
		if td.keys, err = a.d.Alloc(4 * slots); err == nil {
			td.vals, err = a.d.Alloc(4 * slots)
		}
	}
	if err != nil {
		td.freeTables()
		return nil, fmt.Errorf("gpu: top-down tables: %w", err)
	}
	return td, nil
}

// freeTables releases the dense word tables.
func (td *topDownPools) freeTables() {
	cuda.FreeAll(td.off, td.keys, td.vals)
	td.off, td.keys, td.vals = nil, nil, nil
}

// free releases every buffer; a nil td has none.
func (td *topDownPools) free() error {
	if td == nil {
		return nil
	}
	return cuda.FreeAll(td.weight, td.off, td.keys, td.vals)
}

// checkFlag fails if a kernel found a hash table full.
func (a *Corpus) checkFlag() error {
	flag, err := a.errFlag.Uint32At(0)
	if err != nil {
		return err
	}
	if flag != 0 {
		return errors.New("gpu: a hash table ran out of slots (its bound is wrong)")
	}
	return nil
}

// filePool is a pool of per-document hash tables on the device: document
// f's slots are fileOff[f]..fileOff[f+1] (also in buffer off) of keys and
// vals.
type filePool struct {
	fileOff         []uint64
	off, keys, vals *cuda.Buffer
}

// compaction is the compaction kernels of pools of one key width.
type compaction struct {
	chunkCounts func(l launcher, grid, block int, fkeys devPtr, slots uint64, counts devPtr) error
	compact     func(l launcher, grid, block int, fkeys, fvals devPtr, slots uint64, base, outKeys, outVals devPtr) error
	rowStarts   func(l launcher, grid, block int, fileOff devPtr, nfiles uint64, fkeys, base, rowStart devPtr) error
}

// The compaction of word tables (32-bit keys) and of sequence tables
// (64-bit keys).
var (
	wordCompaction = compaction{launchTadocChunkCounts, launchTadocCompact, launchTadocRowStarts}
	seqCompaction  = compaction{launchTadocSeqChunkCounts, launchTadocSeqCompact, launchTadocSeqRowStarts}
)

// deviceRows is a document pool compacted on the device: document f's
// entries are start[f]..start[f+1] of keys and vals (n in all); startBuf
// holds start on the device. The buffers are scratch (until the next run).
type deviceRows struct {
	n                    int
	start                []int
	startBuf, keys, vals *cuda.Buffer
}

// scratch returns the scratch buffer name, of at least size bytes. A run
// takes its temporary device buffers from here, and the next run finds
// them again: allocating and freeing device memory in every run cost host
// time (a free waits for the device). Free releases them.
func (a *Corpus) scratch(name string, size int64) (*cuda.Buffer, error) {
	if b := a.tmp[name]; b != nil {
		if b.Size() >= size {
			return b, nil
		}
		delete(a.tmp, name)
		if err := b.Free(); err != nil {
			return nil, err
		}
	}
	b, err := a.d.Alloc(size)
	if err != nil {
		return nil, err
	}
	a.tmp[name] = b
	return b, nil
}

// compact gathers the pool's filled slots, in pool order, into rows, one
// per document, on the device: counts per chunk of slots (chunk_counts),
// each chunk's output base from them on the host, then the ordered writes
// (compact) and each document's first position (row_starts), each the
// kernel for keys of K. It returns the rows and the device time of its
// launches.
func compact[K uint32 | uint64](a *Corpus, p filePool) (*deviceRows, time.Duration, error) {
	keySize := int64(unsafe.Sizeof(K(0)))
	k := wordCompaction
	if keySize == 8 {
		k = seqCompaction
	}
	slots, files := p.fileOff[len(p.fileOff)-1], len(p.fileOff)-1
	nchunks := int((slots + compactChunk - 1) / compactChunk)
	rows := &deviceRows{}
	counts, err := a.scratch("compact.counts", 4*int64(nchunks))
	if err != nil {
		return nil, 0, err
	}
	fkeys, fvals := ptr(p.keys), ptr(p.vals)
	countTime, err := a.d.Timed(func() error {
		return k.chunkCounts(a, nchunks, analyticsCTA, fkeys, slots, ptr(counts))
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
	base, err := a.scratch("compact.base", 8*int64(len(bases)))
	if err != nil {
		return nil, 0, err
	}
	if err := cuda.Write(base, bases); err != nil {
		return nil, 0, err
	}
	for _, u := range []struct {
		dst  **cuda.Buffer
		name string
		size int64
	}{{&rows.startBuf, "rows.start", 8 * int64(files+1)}, {&rows.keys, "rows.keys", keySize * int64(filled)}, {&rows.vals, "rows.vals", 4 * int64(filled)}} {
		if *u.dst, err = a.scratch(u.name, u.size); err != nil {
			return nil, 0, err
		}
	}
	compactTime, err := a.d.Timed(func() error {
		if err := k.compact(a, nchunks, analyticsCTA, fkeys, fvals, slots, ptr(base),
			ptr(rows.keys), ptr(rows.vals)); err != nil {
			return err
		}
		return k.rowStarts(a, gridOf(files+1, 1), analyticsCTA, ptr(p.off), uint64(files), fkeys,
			ptr(base), ptr(rows.startBuf))
	})
	if err != nil {
		return nil, 0, err
	}
	starts := make([]uint64, files+1)
	if err := cuda.Read(rows.startBuf, starts); err != nil {
		return nil, 0, err
	}
	if starts[0] != 0 || starts[files] != filled {
		return nil, 0, fmt.Errorf("gpu: compaction gave rows %d..%d for %d entries", starts[0], starts[files], filled)
	}
	rows.n, rows.start = int(filled), make([]int, files+1)
	for f, s := range starts {
		rows.start[f] = int(s)
	}
	return rows, countTime + compactTime, nil
}
