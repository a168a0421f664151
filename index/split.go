package index

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// SplitOptions tune Split.
type SplitOptions struct {
	// Force replaces the shards of a collection already in the output
	// directory even with ones of fewer than half their documents.
	Force bool
	// Collection is the collection's identity; empty: a random one.
	Collection string
	// Shard, when not nil, is told of each shard once it is committed.
	Shard func(ShardInfo, Meta)
}

// Split writes the live documents of src (an index of one segment or a
// segmented one, not a shard) into out as a sharded collection of n
// shards: out/shard-00 to shard-(n-1), each an index with its own commit
// point holding one range of src's docids (a range of URLs, src being in
// URL order), the ranges' document counts as even as the crawl files
// allow (a crawl file's documents stay in one shard), scored under the
// statistics of all of src's documents (collection.bin), so that the
// shards' top k, merged, are src's. Each shard is rewritten as a merge
// of src's segments would rewrite it, codecs, store and positions kept.
// The manifest out/shards.json, written last, makes the collection
// exist. Shard directories of an earlier, larger collection there are
// removed once the new manifest is committed.
func Split(ctx context.Context, src *Index, out string, n int, opts SplitOptions) (Manifest, error) {
	if n < 1 {
		return Manifest{}, fmt.Errorf("index: split: %d shards: want at least 1", n)
	}
	if _, err := os.Stat(filepath.Join(out, fileMeta)); err == nil {
		return Manifest{}, fmt.Errorf("index: split: %s holds an index: a sharded collection needs a directory of its own", out)
	}
	d, err := LockDir(out)
	if err != nil {
		return Manifest{}, err
	}
	defer d.Unlock()
	return d.Split(ctx, src, n, opts)
}

// Split is Split into d, a collection directory its caller locked (with
// LockDir), which may hold the caller's scratch directories (TempDir).
func (d *Dir) Split(ctx context.Context, src *Index, n int, opts SplitOptions) (Manifest, error) {
	if _, ok := src.Shard(); ok {
		return Manifest{}, fmt.Errorf("index: split: %s is a shard already: split the collection's original index", src.Dir())
	}
	cuts, err := planShards(src, n)
	if err != nil {
		return Manifest{}, err
	}
	id := opts.Collection
	if id == "" {
		var b [16]byte
		rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	man := Manifest{Collection: id, Docs: src.meta.Docs, Tokens: src.meta.Tokens}
	m := src.meta
	wopts := WriterOptions{DocIDCodec: m.DocIDCodec, FreqCodec: m.FreqCodec, Order: m.Order, BM25: src.BM25(),
		TitleWeight: m.TitleWeight, Positions: src.HasPositions(), Force: opts.Force}
	if wopts.Positions {
		wopts.PositionsCodec = src.PositionsCodec().Name()
	}
	for j := range n {
		first, end := cuts[j], cuts[j+1]
		info := ShardInfo{Collection: id, Index: j, Count: n, FirstDoc: first, CollectionDocs: m.Docs}
		wopts.Shard = &ShardSpec{Info: info, Tokens: m.Tokens, DF: src.wholeDF}
		name := ShardDir(j)
		sm, err := writeShard(ctx, src, filepath.Join(d.path, name), wopts, first, end)
		if err != nil {
			return Manifest{}, fmt.Errorf("index: split: %s: %w", name, err)
		}
		man.Shards = append(man.Shards, ManifestShard{Dir: name, FirstDoc: first, Docs: uint64(end - first)})
		if opts.Shard != nil {
			opts.Shard(info, sm)
		}
	}
	if err := d.CommitManifest(man); err != nil {
		return Manifest{}, err
	}
	return man, nil
}

// ShardDir is shard j's directory in a collection directory, as Split
// names it.
func ShardDir(j int) string { return fmt.Sprintf("shard-%02d", j) }

// CommitManifest makes the shards of m, each already committed in its
// directory inside d (ShardDir), a sharded collection: it checks m,
// commits it as d's shards.json and removes the shard directories of an
// earlier, larger collection there. Whoever writes a collection's shards
// calls it last, as Split does.
func (d *Dir) CommitManifest(m Manifest) error {
	if err := m.check(); err != nil {
		return fmt.Errorf("index: commit manifest: %w", err)
	}
	if err := writeManifest(d.path, m); err != nil {
		return err
	}
	removeStaleShards(d.path, len(m.Shards))
	return nil
}

// removeStaleShards removes the shard directories from n on, which an
// earlier, larger collection left.
func removeStaleShards(dir string, n int) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		var j int
		if _, err := fmt.Sscanf(e.Name(), "shard-%d", &j); err == nil && j >= n && e.Name() == ShardDir(j) {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// writeShard writes src's documents first to end-1 into the index
// directory dir, renumbered from 0, and commits it.
func writeShard(ctx context.Context, src *Index, dir string, opts WriterOptions, first, end uint32) (Meta, error) {
	sd, err := LockDir(dir)
	if err != nil {
		return Meta{}, err
	}
	defer sd.Unlock()
	local := func(g uint32) uint32 {
		if g == Dropped || g < first || g >= end {
			return Dropped
		}
		return g - first
	}
	var inputs []MergeInput
	if src.seg == nil {
		dm := make([]uint32, src.meta.Docs)
		for g := range dm {
			dm[g] = local(uint32(g))
		}
		inputs = append(inputs, MergeInput{Index: src, DocMap: dm})
	} else {
		for i, p := range src.seg.parts {
			dm := make([]uint32, p.meta.Docs)
			kept := false
			for l, g := range src.seg.global[i] {
				dm[l] = local(g)
				kept = kept || dm[l] != Dropped
			}
			if kept {
				inputs = append(inputs, MergeInput{Index: p, DocMap: dm})
			}
		}
	}
	if _, err := merge(ctx, sd, opts, inputs, false); err != nil {
		return Meta{}, err
	}
	return ReadMeta(dir)
}

// wholeDF is a term's df over ix's live documents (0 if it has none).
func (ix *Index) wholeDF(term string) uint64 {
	if ix.seg != nil {
		return ix.seg.liveDF(term)
	}
	df, _ := ix.DocFreq(term)
	return uint64(df)
}

// planShards cuts ix's docids into n ranges, returned as their n+1
// bounds: each range starts where a crawl file's documents start (any
// document of an index without sources), and the ranges' sizes are as
// close to docs/n as those starts allow.
func planShards(ix *Index, n int) ([]uint32, error) {
	docs := ix.meta.Docs
	starts, err := sourceStarts(ix)
	if err != nil {
		return nil, err
	}
	if len(starts) < n {
		return nil, fmt.Errorf("index: split: %d shards of %d documents from %d crawl files: at most one shard per file", n, docs, len(starts))
	}
	cuts := []uint32{0}
	k := 0 // the index in starts of the last cut
	for j := 1; j < n; j++ {
		target := uint64(j) * docs / uint64(n)
		lo, hi := k+1, len(starts)-(n-j) // room for the shards after j
		i := sort.Search(len(starts), func(i int) bool { return uint64(starts[i]) >= target })
		i = min(max(i, lo), hi)
		dist := func(i int) int64 { return max(int64(starts[i])-int64(target), int64(target)-int64(starts[i])) }
		if i > lo && dist(i-1) < dist(i) {
			i--
		}
		k = i
		cuts = append(cuts, starts[k])
	}
	return append(cuts, uint32(docs)), nil
}

// sourceStarts is the sorted docids of ix at which a crawl file's
// documents start: every docid when some segment records no sources.
func sourceStarts(ix *Index) ([]uint32, error) {
	docs := ix.meta.Docs
	every := func() []uint32 {
		s := make([]uint32, docs)
		for d := range s {
			s[d] = uint32(d)
		}
		return s
	}
	var starts []uint32
	if ix.seg == nil {
		_, srcs, ok := ix.Sources()
		if !ok {
			return every(), nil
		}
		d := uint32(0)
		for _, s := range srcs {
			starts = append(starts, d)
			d += s.Docs
		}
		return starts, nil
	}
	for i, p := range ix.seg.parts {
		_, srcs, ok := p.Sources()
		if !ok {
			return every(), nil
		}
		d := uint32(0)
		for _, s := range srcs {
			if g := ix.seg.global[i][d]; g != Dropped {
				starts = append(starts, g)
			}
			d += s.Docs
		}
	}
	slices.Sort(starts)
	return starts, nil
}
