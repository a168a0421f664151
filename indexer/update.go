package indexer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/gpusearch/gpusearch/index"
)

// UpdateReport summarises an update: how the crawl's files compare with
// what the index recorded, and the parse of the files that are new or
// changed.
type UpdateReport struct {
	Added     int  `json:"added"`     // files new to the index, parsed
	Changed   int  `json:"changed"`   // files whose content changed, parsed again
	Removed   int  `json:"removed"`   // files the index holds that the crawl no longer gives: dropped
	Unchanged int  `json:"unchanged"` // the same size and modification time: kept
	Touched   int  `json:"touched"`   // another size or modification time, the same content hash: kept
	Committed bool `json:"committed"` // a new generation was written (false: nothing changed)
	Documents int  `json:"documents"` // documents in the index after the update
	// Build is the walk's skipped files and the parse of the added and
	// changed files (its Documents: theirs).
	Build Report `json:"build"`
	// Where the time went: the walk, hashing the files whose size or
	// modification time changed, parsing the added and changed ones into
	// a temporary index, and merging it with the old one.
	Walk    time.Duration `json:"walk_ns"`
	Hash    time.Duration `json:"hash_ns"`
	Parse   time.Duration `json:"parse_ns"`
	Merge   time.Duration `json:"merge_ns"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// ErrNoSources is wrapped when an index cannot be updated because it does
// not record what it was built from: an index of format 5 or older.
var ErrNoSources = errors.New("the index records no sources (format 5 or older): rebuild it once with gpusearch index")

// Update brings the index in indexDir up to date with the crawl in
// crawlDir: it walks the crawl as Build does, compares each file with
// what the index recorded of it (index.Source: URL, size, modification
// time, then content hash), parses only the new and changed files, into a
// temporary index, and merges that with the old index's documents that
// are neither removed nor changed into one new generation, in URL order,
// which it commits: the same index, file for file, that Build would write
// from the crawl (sources.bin aside, which keeps the identities of touched
// files as the last commit recorded them when nothing else changed). When
// nothing changed it writes nothing.
//
// The codecs, BM25 parameters, positions, store, passage size and
// document size limits are the index's own, whatever opts says; opts
// gives the workers, the memory budget, the scratch directory, Force,
// progress and logging.
func Update(ctx context.Context, crawlDir, indexDir string, opts Options) (UpdateReport, error) {
	start := time.Now()
	var rep UpdateReport
	if _, err := index.ReadMeta(indexDir); err != nil {
		return rep, fmt.Errorf("indexer: update %s: %w (build it with gpusearch index first)", indexDir, err)
	}
	out, err := index.LockDir(indexDir)
	if err != nil {
		return rep, err
	}
	defer out.Unlock()
	old, err := index.Open(indexDir)
	if err != nil {
		return rep, fmt.Errorf("indexer: update: %w", err)
	}
	defer old.Close()
	opts, err = updateOptions(old, opts)
	if err != nil {
		return rep, err
	}
	_, srcs, _ := old.Sources()

	files, err := walk(ctx, crawlDir, opts, &rep.Build)
	if err != nil {
		return rep, err
	}
	orderFiles(files, opts)
	rep.Walk = time.Since(start)

	t := time.Now()
	kept, parse := rep.classify(srcs, files, opts)
	rep.Hash = time.Since(t)
	progressf(opts, "update: %d files: %d added, %d changed, %d removed, %d unchanged, %d touched\n",
		len(files), rep.Added, rep.Changed, rep.Removed, rep.Unchanged, rep.Touched)
	if rep.Added+rep.Changed+rep.Removed == 0 {
		rep.Documents = old.NumDocs()
		rep.Elapsed = time.Since(start)
		return rep, nil
	}

	t = time.Now()
	tmpDir, err := out.TempDir("update")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(tmpDir)
	var fresh *index.Index
	if len(parse) > 0 {
		if fresh, err = buildInto(ctx, parse, tmpDir, opts, &rep.Build); err != nil {
			return rep, err
		}
		defer fresh.Close()
	}
	rep.Parse = time.Since(t)

	t = time.Now()
	progressf(opts, "update: merging %d kept documents with %d new ones\n", countDocs(srcs, kept), rep.Build.Documents)
	inputs := mergeInputs(old, srcs, kept, fresh)
	wopts := index.WriterOptions{DocIDCodec: opts.DocIDCodec, FreqCodec: opts.FreqCodec, Order: opts.Order, BM25: opts.BM25,
		Force: opts.Force, Positions: opts.Positions, PositionsCodec: opts.PositionsCodec}
	if err := index.Merge(ctx, out, wopts, inputs); err != nil {
		return rep, err
	}
	rep.Merge = time.Since(t)
	rep.Committed = true
	for _, in := range inputs {
		for _, d := range in.DocMap {
			if d != index.Dropped {
				rep.Documents++
			}
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// updateOptions are the options an update of ix parses with: ix's own
// codecs, order, BM25 parameters, positions, store, passage size and
// document size limits, and opts's workers, memory budget, scratch
// directory, Force, progress and logger.
func updateOptions(ix *index.Index, opts Options) (Options, error) {
	so, _, ok := ix.Sources()
	if !ok {
		return opts, fmt.Errorf("indexer: update %s: %w", ix.Dir(), ErrNoSources)
	}
	m := ix.Meta()
	if m.Order != "url" {
		return opts, fmt.Errorf("indexer: update %s: the index is in %s order; an update keeps docids in URL order: rebuild it with --order url", ix.Dir(), m.Order)
	}
	opts.DocIDCodec, opts.FreqCodec, opts.Order, opts.BM25 = m.DocIDCodec, m.FreqCodec, m.Order, ix.BM25()
	opts.Positions, opts.PositionsCodec = ix.HasPositions(), ""
	if opts.Positions {
		opts.PositionsCodec = ix.PositionsCodec().Name()
	}
	opts.Store = ix.Store()
	opts.Passages, opts.MaxDocBytes, opts.Oversize = so.Passages, so.MaxDocBytes, so.Oversize
	opts = opts.withDefaults()
	return opts, opts.validate()
}

// progressf prints a progress line, unless progress is off.
func progressf(opts Options, format string, args ...any) {
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, format, args...)
	}
}

// classify compares the walked files (in URL order) with the index's
// sources (in docid, which is URL, order) and counts them in rep. It
// returns, per source, whether its documents stay, with its identity
// refreshed when the file was only touched, and the files to parse: those
// new to the index and those whose content changed.
func (rep *UpdateReport) classify(srcs []index.Source, files []docFile, opts Options) (kept []keptSource, parse []docFile) {
	bySrc := make(map[string]int, len(srcs))
	for i, s := range srcs {
		bySrc[s.URL] = i
	}
	kept = make([]keptSource, len(srcs))
	var suspects []int // files whose size or modification time changed
	seen := make([]bool, len(srcs))
	for k, f := range files {
		i, ok := bySrc[f.url]
		if !ok {
			rep.Added++
			continue
		}
		seen[i] = true
		if s := srcs[i]; s.Size == f.size && s.MTime == f.mtime {
			rep.Unchanged++
			kept[i] = keptSource{keep: true, src: s}
			continue
		}
		suspects = append(suspects, k)
	}
	hashes := hashFiles(files, suspects, opts)
	for j, k := range suspects {
		f := files[k]
		i := bySrc[f.url]
		if s := srcs[i]; hashes[j].ok && hashes[j].hash == s.Hash {
			rep.Touched++
			s.Size, s.MTime = f.size, f.mtime
			kept[i] = keptSource{keep: true, src: s}
			continue
		}
		rep.Changed++
	}
	for i := range srcs {
		if !seen[i] {
			rep.Removed++
		}
	}
	for _, f := range files {
		if i, ok := bySrc[f.url]; !ok || !kept[i].keep {
			parse = append(parse, f)
		}
	}
	return kept, parse
}

// keptSource says whether a source's documents stay, and what the index
// records of it then.
type keptSource struct {
	keep bool
	src  index.Source
}

// fileHash is a file's content hash, if it could be read.
type fileHash struct {
	hash uint64
	ok   bool
}

// hashFiles hashes files[k] for each k of which, as Build would read
// them, on opts.Workers goroutines. A file that cannot be read has no
// hash: it counts as changed, and its parse reports why.
func hashFiles(files []docFile, which []int, opts Options) []fileHash {
	out := make([]fileHash, len(which))
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, len(which)) {
		wg.Go(func() {
			for j := range next {
				if data, _, err := files[which[j]].read(opts.MaxDocBytes); err == nil {
					out[j] = fileHash{contentHash(data), true}
				}
			}
		})
	}
	for j := range which {
		next <- j
	}
	close(next)
	wg.Wait()
	return out
}

// buildInto builds an index of files (in docid order) in dir, a scratch
// directory, and opens it.
func buildInto(ctx context.Context, files []docFile, dir string, opts Options, rep *Report) (*index.Index, error) {
	d, err := index.LockDir(dir)
	if err != nil {
		return nil, err
	}
	err = build(ctx, files, d, opts, rep)
	d.Unlock()
	if err != nil {
		return nil, err
	}
	return index.Open(dir)
}

// countDocs counts the kept sources' documents.
func countDocs(srcs []index.Source, kept []keptSource) int {
	n := 0
	for i, s := range srcs {
		if kept[i].keep {
			n += int(s.Docs)
		}
	}
	return n
}

// mergeInputs numbers the documents of the update: the old index's kept
// sources and the fresh index's, in URL order, each source's documents
// consecutively.
func mergeInputs(old *index.Index, srcs []index.Source, kept []keptSource, fresh *index.Index) []index.MergeInput {
	type placed struct {
		url         string
		input       int
		first, docs uint32
	}
	var all []placed
	inputs := []index.MergeInput{{Index: old, DocMap: make([]uint32, old.NumDocs())}}
	refreshed := make([]index.Source, len(srcs))
	doc := uint32(0)
	for i, s := range srcs {
		refreshed[i] = s
		if kept[i].keep {
			refreshed[i] = kept[i].src
			all = append(all, placed{s.URL, 0, doc, s.Docs})
		}
		doc += s.Docs
	}
	inputs[0].Sources = refreshed
	if fresh != nil {
		_, fs, _ := fresh.Sources()
		inputs = append(inputs, index.MergeInput{Index: fresh, DocMap: make([]uint32, fresh.NumDocs())})
		doc = 0
		for _, s := range fs {
			all = append(all, placed{s.URL, 1, doc, s.Docs})
			doc += s.Docs
		}
	}
	for _, in := range inputs {
		for d := range in.DocMap {
			in.DocMap[d] = index.Dropped
		}
	}
	slices.SortFunc(all, func(a, b placed) int { return cmp.Compare(a.url, b.url) })
	next := uint32(0)
	for _, p := range all {
		for k := range p.docs {
			inputs[p.input].DocMap[p.first+k] = next
			next++
		}
	}
	return inputs
}
