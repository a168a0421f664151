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

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/gpusearch/gpusearch/index"
)

// UpdateReport summarises an update: how the crawl's files compare with
// what the index recorded, the parse of the files that are new, changed
// or touched into a new segment, and the merges that followed.
type UpdateReport struct {
	Added     int  `json:"added"`     // files new to the index, parsed
	Changed   int  `json:"changed"`   // files whose content changed, parsed again
	Removed   int  `json:"removed"`   // files the index holds that the crawl no longer gives: dropped
	Unchanged int  `json:"unchanged"` // the same size and modification time: kept
	Touched   int  `json:"touched"`   // another size or modification time, the same content hash: parsed again if the update commits, to record the new identity
	Committed bool `json:"committed"` // a new commit was written (false: nothing changed)
	Documents int  `json:"documents"` // documents in the index after the update
	Segments  int  `json:"segments"`  // segments the update's commit named
	Merged    int  `json:"merged"`    // segments the merge policy then merged (MergeReport.Inputs)
	// Build is the walk's skipped files and the parse of the added,
	// changed and touched files (its Documents: theirs).
	Build Report `json:"build"`
	// Where the time went: the walk, hashing the files whose size or
	// modification time changed, parsing the added, changed and touched
	// ones into a new segment, the commit (deletions and commit point),
	// and the merge policy's merges.
	Walk    time.Duration `json:"walk_ns"`
	Hash    time.Duration `json:"hash_ns"`
	Parse   time.Duration `json:"parse_ns"`
	Commit  time.Duration `json:"commit_ns"`
	Merge   time.Duration `json:"merge_ns"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// ErrNoSources is wrapped when an index cannot be updated because it does
// not record what it was built from: an index of format 5 or older.
var ErrNoSources = errors.New("the index records no sources (format 5 or older): rebuild it once with gpusearch index")

// Update brings the index in indexDir up to date with its crawl in
// crawlDir: it walks the crawl as Build does, compares each file with
// what the index recorded of it (index.Source: URL, size, modification
// time, then content hash), parses only the new, changed and touched
// files into one new segment, marks the documents of the removed,
// changed and touched files deleted in the segments that hold them, and
// commits the new set of segments; then it merges segments as the merge
// policy (opts.Merge) asks. The index then answers every query as a fresh
// Build of the crawl would (index.Index numbers its live documents as the
// build does). When nothing was added, changed or removed it writes
// nothing.
//
// The codecs, BM25 parameters, positions, store, passage size and
// document size limits are the index's own, whatever opts says; opts
// gives the workers, the memory budget, the scratch directory, Force, the
// merge policy, progress and logging.
func Update(ctx context.Context, crawlDir, indexDir string, opts Options) (UpdateReport, error) {
	start := time.Now()
	var rep UpdateReport
	if err := refuseShards(indexDir, "an update"); err != nil {
		return rep, err
	}
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
	segs := segmentsOf(old)
	opts, err = updateOptions(segs[0].ix, opts)
	if err != nil {
		return rep, err
	}
	srcs, where := liveSources(segs)

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
	var added *index.Meta
	if len(parse) > 0 {
		fresh, err := buildInto(ctx, parse, tmpDir, opts, &rep.Build)
		if err != nil {
			return rep, err
		}
		docs := fresh.NumDocs()
		fresh.Close()
		if docs > 0 {
			m, err := out.AdoptSegment(tmpDir)
			if err != nil {
				return rep, err
			}
			added = &m
		}
	}
	rep.Parse = time.Since(t)

	t = time.Now()
	commit := deleteReplaced(segs, srcs, where, kept)
	if added != nil {
		commit = append(commit, index.CommitSegment{Meta: *added})
	}
	m, err := out.CommitSegments(commit, opts.Force)
	if err != nil {
		return rep, err
	}
	rep.Committed = true
	rep.Documents = int(m.Docs)
	rep.Segments = max(1, len(m.Segments))
	rep.Commit = time.Since(t)

	t = time.Now()
	if rep.Merged, err = mergeByPolicy(ctx, out, opts, false); err != nil {
		return rep, err
	}
	rep.Merge = time.Since(t)
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// segment is one segment of an index being updated or merged.
type segment struct {
	ix     *index.Index
	global []uint32             // its docids' in the whole index, index.Dropped when deleted; nil: the same
	del    *roaring.Bitmap      // its deleted documents
	prior  *index.DeletionsMeta // its deletions file
}

// segmentsOf lists an index's segments: itself for an index of one
// segment without deletions.
func segmentsOf(ix *index.Index) []segment {
	parts := ix.Segments()
	if parts == nil {
		return []segment{{ix: ix, del: roaring.New()}}
	}
	out := make([]segment, len(parts))
	for i, p := range parts {
		out[i] = segment{ix: p, global: ix.SegmentDocIDs(i), del: ix.Deleted(i), prior: ix.Meta().Segments[i].Deletions}
	}
	return out
}

// srcLoc is where a live source's documents lie: its segment and first
// docid there.
type srcLoc struct {
	seg   int
	first uint32
}

// liveSources lists the live sources of every segment in URL order (the
// order of the index's docids) and where each lies.
func liveSources(segs []segment) ([]index.Source, []srcLoc) {
	type located struct {
		src index.Source
		at  srcLoc
	}
	var all []located
	for i, s := range segs {
		_, srcs, _ := s.ix.Sources()
		first := uint32(0)
		for _, src := range srcs {
			if !s.del.Contains(first) {
				all = append(all, located{src, srcLoc{i, first}})
			}
			first += src.Docs
		}
	}
	slices.SortFunc(all, func(a, b located) int { return cmp.Compare(a.src.URL, b.src.URL) })
	srcs, where := make([]index.Source, len(all)), make([]srcLoc, len(all))
	for i, l := range all {
		srcs[i], where[i] = l.src, l.at
	}
	return srcs, where
}

// deleteReplaced marks the documents of the sources not kept (removed,
// changed, or touched: parsed again so that the new segment records their
// identity) deleted in their segments, and returns the commit's old
// segments: those with live documents left, with their deletions.
func deleteReplaced(segs []segment, srcs []index.Source, where []srcLoc, kept []keptSource) []index.CommitSegment {
	changed := make([]bool, len(segs))
	for i, src := range srcs {
		if !kept[i].keep || kept[i].src != src {
			at := where[i]
			segs[at.seg].del.AddRange(uint64(at.first), uint64(at.first)+uint64(src.Docs))
			changed[at.seg] = true
		}
	}
	var out []index.CommitSegment
	for i, s := range segs {
		if s.del.GetCardinality() == uint64(s.ix.NumDocs()) && (i > 0 || len(segs) > 1) {
			continue // nothing live: the commit drops it (but the last one, so that a commit names a segment)
		}
		c := index.CommitSegment{Meta: s.ix.Meta(), Prior: s.prior}
		if changed[i] {
			c.Deleted = s.del
		}
		out = append(out, c)
	}
	return out
}

// updateOptions are the options an update of ix parses with: ix's own
// codecs, order, BM25 parameters, title weight, positions, store, passage
// size and document size limits, and opts's workers, memory budget,
// scratch directory, Force, progress and logger.
func updateOptions(ix *index.Index, opts Options) (Options, error) {
	so, _, ok := ix.Sources()
	if !ok {
		return opts, fmt.Errorf("indexer: update %s: %w", ix.Dir(), ErrNoSources)
	}
	m := ix.Meta()
	if m.Order != "url" {
		return opts, fmt.Errorf("indexer: update %s: the index is in %s order; an update keeps docids in URL order: rebuild it with --order url", ix.Dir(), m.Order)
	}
	// The new documents' frequencies must fold in the index's title
	// weight; a weight the caller asks for explicitly and the index
	// lacks is refused, not silently dropped.
	if opts.TitleWeight != 0 && opts.TitleWeight != int(m.TitleWeight) {
		return opts, fmt.Errorf("indexer: update %s: the index has title weight %d, not %d: rebuild it (without --update) to change the weight", ix.Dir(), m.TitleWeight, opts.TitleWeight)
	}
	opts.TitleWeight = int(m.TitleWeight)
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
// new to the index, those whose content changed and the touched ones (a
// segment's sources cannot be rewritten: the new segment records them).
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
		if i, ok := bySrc[f.url]; !ok || !kept[i].keep || kept[i].src != srcs[i] {
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
