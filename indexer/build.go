package indexer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/progress"
)

// parsed is one worker's output for one document slot.
type parsed struct {
	slot      uint32
	length    uint32
	terms     docTerms
	passages  []passage // passage mode: the document's passages (terms is empty)
	bytes     int64
	truncated bool
	title     string // for the document store
	text      []byte
	tokens    []index.StoredToken // the text's tokens, for the word-coded store
	hash      uint64              // of the bytes read (contentHash)
	err       error
}

// Build indexes the crawl directory into outDir, as a new generation of
// the index there (package index's Dir): the old index keeps opening until
// the new one is committed, and stays if the build fails. It refuses to
// replace an index with an empty one or one of fewer than half its
// documents (index.ErrShrink) unless opts.Force is set.
func Build(ctx context.Context, crawlDir, outDir string, opts Options) (Report, error) {
	opts = opts.withDefaults()
	start := time.Now()
	var rep Report
	if err := opts.validate(); err != nil {
		return rep, err
	}
	if index.IsSharded(outDir) {
		return rep, fmt.Errorf("indexer: %s is a sharded collection: build it with --shards, or into another directory", outDir)
	}
	files, err := walk(ctx, crawlDir, opts, &rep)
	if err != nil {
		return rep, err
	}
	orderFiles(files, opts)
	opts.Logger.Info("walked crawl", "documents", len(files), "unsupported", rep.Unsupported.Count)

	// The output directory's lock is held from here to the commit: a
	// second writer is refused, and what killed runs left is removed.
	out, err := index.LockDir(outDir)
	if err != nil {
		return rep, err
	}
	defer out.Unlock()
	if err := build(ctx, files, out, opts, &rep); err != nil {
		return rep, err
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// build parses files (in docid order) and writes them as a new
// generation of out's index, with what it read of each file
// (index.Source), and commits it.
func build(ctx context.Context, files []docFile, out *index.Dir, opts Options, rep *Report) error {
	var tmp string
	var err error
	if opts.TempDir == "" {
		tmp, err = out.TempDir("runs")
	} else {
		tmp, err = scratchDir(opts.TempDir)
	}
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var feed *storeFeed
	if opts.Store != index.StoreNone {
		// A passage has no text of its own: passages store their
		// document's title.
		mode := opts.Store
		if opts.Passages > 0 {
			mode = index.StoreTitles
		}
		sb, err := index.NewStoreBuilder(tmp, mode)
		if err != nil {
			return err
		}
		defer sb.Close()
		feed = newStoreFeed(sb)
	}

	inv := newInverter(ctx, opts.MemoryBudget, tmp, opts.Positions)
	lengths := make([]uint32, len(files))
	hashes := make([]uint64, len(files))
	failed := make([]bool, len(files))
	var total int64
	for _, f := range files {
		total += min(f.size, opts.MaxDocBytes)
	}
	var pt *passageTable
	if opts.Passages > 0 {
		pt = newPassageTable(len(files))
	}
	prog := progress.Start(opts.Progress, "indexing", len(files), total)
	err = parseAll(ctx, files, opts, func(p parsed) error {
		prog.Add(p.bytes)
		rep.InputBytes += p.bytes
		if feed != nil {
			docs := 1
			if p.err != nil {
				docs = 0
			} else if pt != nil {
				docs = len(p.passages)
			}
			if err := feed.add(p.slot, storedSlot{title: p.title, text: p.text, tokens: p.tokens, docs: docs}); err != nil {
				return err
			}
		}
		if p.err != nil {
			failed[p.slot] = true
			rep.unreadable(files[p.slot].url, p.err)
			return nil
		}
		hashes[p.slot] = p.hash
		if p.truncated {
			rep.Oversize.add(files[p.slot].url, nil)
		}
		if pt != nil {
			return pt.add(p.slot, p.passages, inv)
		}
		lengths[p.slot] = p.length
		return inv.add(p.slot, p.terms)
	})
	prog.Stop()
	if err != nil {
		return err
	}
	rep.Runs = len(inv.runs)

	remap, docLens, urls := docTable(files, failed, lengths, pt)
	rep.Documents = len(urls)
	srcs := sources(files, failed, hashes, pt)
	return write(ctx, out, opts, inv, feed, remap, docLens, urls, srcs, rep)
}

// sources lists what was read of each file that became documents, in
// docid order.
func sources(files []docFile, failed []bool, hashes []uint64, pt *passageTable) []index.Source {
	var srcs []index.Source
	for slot, f := range files {
		if failed[slot] {
			continue
		}
		docs := uint32(1)
		if pt != nil {
			docs = pt.count[slot]
		}
		srcs = append(srcs, index.Source{URL: f.url, Size: f.size, MTime: f.mtime, Hash: hashes[slot], Docs: docs})
	}
	return srcs
}

// docTable closes the gaps that failed files left: it maps each slot (or,
// in passage mode, temporary passage id) to its docid, and lists the
// documents' lengths and URLs in docid order.
func docTable(files []docFile, failed []bool, lengths []uint32, pt *passageTable) (remap, docLens []uint32, urls []string) {
	if pt != nil {
		return pt.docs(files, failed)
	}
	remap = make([]uint32, len(files))
	for slot, f := range files {
		remap[slot] = uint32(len(urls))
		if !failed[slot] {
			docLens = append(docLens, lengths[slot])
			urls = append(urls, f.url)
		}
	}
	return remap, docLens, urls
}

// write merges the inverter's runs into a new generation of out's index,
// with the document store when feed has one, and commits it.
func write(ctx context.Context, out *index.Dir, opts Options, inv *inverter, feed *storeFeed, remap, docLens []uint32, urls []string, srcs []index.Source, rep *Report) error {
	w, err := out.NewWriter(index.WriterOptions{
		DocIDCodec: opts.DocIDCodec, FreqCodec: opts.FreqCodec, Order: opts.Order, BM25: opts.BM25, Force: opts.Force,
		TitleWeight: uint32(opts.TitleWeight), Positions: opts.Positions, PositionsCodec: opts.PositionsCodec,
	}, docLens, urls)
	if err != nil {
		return err
	}
	if feed != nil {
		if err := w.AddStore(feed.b); err != nil {
			w.Abort()
			return err
		}
	}
	if err := w.AddSources(index.SourceOptions{Passages: opts.Passages, MaxDocBytes: opts.MaxDocBytes, Oversize: opts.Oversize}, srcs); err != nil {
		w.Abort()
		return err
	}
	var docids, freqs []uint32
	err = inv.merge(func(term string, list []posting, pos []uint32) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i, p := range list {
			list[i] = pack(remap[p>>32], uint32(p))
		}
		// In passage mode the temporary ids follow collection order, so
		// a remapped list is not sorted.
		sortPostings(list, pos)
		docids, freqs = docids[:0], freqs[:0]
		for _, p := range list {
			docids = append(docids, uint32(p>>32))
			freqs = append(freqs, uint32(p))
		}
		rep.Terms++
		rep.Postings += uint64(len(list))
		if pos != nil {
			return w.AddTermPositions(term, docids, freqs, pos)
		}
		return w.AddTerm(term, docids, freqs)
	})
	if err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return nil
}

// orderFiles puts the files in docid order.
func orderFiles(files []docFile, opts Options) {
	switch opts.Order {
	case "url":
		sort.SliceStable(files, func(i, j int) bool { return files[i].url < files[j].url })
	case "random":
		r := rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15))
		r.Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	}
}

// parseAll parses every file on opts.Workers goroutines and calls collect
// for each result from one goroutine.
func parseAll(ctx context.Context, files []docFile, opts Options, collect func(parsed) error) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan uint32, 4*workers)
	results := make(chan parsed, 4*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := analysis.New()
			for slot := range jobs {
				if ctx.Err() != nil {
					return
				}
				select {
				case results <- parseFile(a, files[slot], slot, opts):
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range files {
			select {
			case jobs <- uint32(i):
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	var first error
	for p := range results {
		if first != nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			first = err
			cancel()
			continue
		}
		if err := collect(p); err != nil {
			first = err
			cancel()
		}
	}
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// parseFile reads, extracts and analyzes one document (into passages of
// about opts.Passages terms when that is positive).
func parseFile(a *analysis.Analyzer, f docFile, slot uint32, opts Options) parsed {
	p := parsed{slot: slot}
	title, text, n, truncated, hash, err := f.text(opts.MaxDocBytes)
	if err != nil {
		p.err = err
		return p
	}
	p.bytes, p.truncated, p.title, p.text, p.hash = n, truncated, title, text, hash
	if opts.Passages > 0 {
		p.passages = splitPassages(a, text, opts.Passages, opts.Positions)
		for _, ps := range p.passages {
			p.length += ps.length
		}
		return p
	}
	c := newTermCounter(opts.Positions)
	if opts.Store == index.StoreText {
		a.AnalyzeOffsets(text, func(term string, start, end int) {
			c.add(term)
			p.tokens = append(p.tokens, index.StoredToken{Start: uint32(start), End: uint32(end), Term: term})
		})
	} else {
		a.Analyze(text, c.add)
	}
	if opts.TitleWeight > 0 {
		// BM25F with integer weights: the title's terms count w more
		// times, in frequency and length, on top of the body, which
		// already holds the title once (validate keeps positions off).
		w := uint32(opts.TitleWeight)
		a.Analyze([]byte(title), func(t string) { c.addWeighted(t, w) })
	}
	p.terms, p.length = c.done(), c.n
	return p
}
