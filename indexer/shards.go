package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gpusearch/gpusearch/index"
)

// ShardsReport is what BuildShards or Split wrote: the build's report
// (BuildShards only), the collection's manifest, each shard's meta.json
// value, and the time the split took.
type ShardsReport struct {
	Report
	Manifest index.Manifest `json:"manifest"`
	Shards   []index.Meta   `json:"shards"`
	Split    time.Duration  `json:"split_ns"`
}

// BuildShards indexes crawlDir as Build does and writes the documents
// into outDir as a sharded collection of n shards (index.Split: URL
// ranges of balanced document counts, a crawl file's documents in one
// shard, each shard scored under the whole collection's statistics).
// The whole index is built first in a scratch directory inside outDir,
// then split and removed; the manifest, written last, makes the
// collection exist.
func BuildShards(ctx context.Context, crawlDir, outDir string, n int, opts Options) (ShardsReport, error) {
	var rep ShardsReport
	if n < 1 {
		return rep, fmt.Errorf("indexer: %d shards: want at least 1", n)
	}
	if _, err := index.ReadMeta(outDir); err == nil {
		return rep, fmt.Errorf("indexer: %s holds an index: a sharded collection needs a directory of its own", outDir)
	}
	d, err := index.LockDir(outDir)
	if err != nil {
		return rep, err
	}
	defer d.Unlock()
	tmp, err := d.TempDir("build")
	if err != nil {
		return rep, err
	}
	defer os.RemoveAll(tmp)
	scratch := filepath.Join(tmp, "index")
	if rep.Report, err = Build(ctx, crawlDir, scratch, opts); err != nil {
		return rep, err
	}
	whole, err := index.Open(scratch)
	if err != nil {
		return rep, err
	}
	defer whole.Close()
	err = split(ctx, d, whole, n, opts, &rep)
	rep.Elapsed += rep.Split
	return rep, err
}

// Split writes the index in inDir into outDir as a sharded collection of
// n shards (index.Split).
func Split(ctx context.Context, inDir, outDir string, n int, opts Options) (ShardsReport, error) {
	var rep ShardsReport
	src, err := index.Open(inDir)
	if err != nil {
		return rep, err
	}
	defer src.Close()
	if _, err := index.ReadMeta(outDir); err == nil {
		return rep, fmt.Errorf("indexer: %s holds an index: a sharded collection needs a directory of its own", outDir)
	}
	d, err := index.LockDir(outDir)
	if err != nil {
		return rep, err
	}
	defer d.Unlock()
	rep.Documents = src.NumDocs()
	err = split(ctx, d, src, n, opts, &rep)
	rep.Elapsed = rep.Split
	return rep, err
}

// split splits src into the locked collection directory d.
func split(ctx context.Context, d *index.Dir, src *index.Index, n int, opts Options, rep *ShardsReport) error {
	start := time.Now()
	progressf(opts, "split: %d documents into %d shards\n", src.NumDocs(), n)
	man, err := d.Split(ctx, src, n, index.SplitOptions{Force: opts.Force, Shard: func(info index.ShardInfo, m index.Meta) {
		rep.Shards = append(rep.Shards, m)
		progressf(opts, "split: shard %d of %d: %d documents from docid %d, %d terms (%s)\n",
			info.Index+1, info.Count, m.Docs, info.FirstDoc, m.Terms, time.Since(start).Round(time.Millisecond))
	}})
	rep.Manifest, rep.Split = man, time.Since(start)
	if err != nil {
		return fmt.Errorf("indexer: %w", err)
	}
	return nil
}

// refuseShards refuses to update or merge a shard or a sharded
// collection: their documents would leave the collection's statistics.
func refuseShards(dir, what string) error {
	if index.IsSharded(dir) {
		return fmt.Errorf("indexer: %s is a sharded collection: %s is not supported for shards yet (split or index --shards it again)", dir, what)
	}
	if m, err := index.ReadMeta(dir); err == nil && m.Shard != nil {
		return fmt.Errorf("indexer: %s is shard %d of %d of collection %s: %s is not supported for shards yet (split or index --shards the collection again)",
			dir, m.Shard.Index, m.Shard.Count, m.Shard.Collection, what)
	}
	return nil
}
