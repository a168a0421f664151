package api

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// A server serves one index, one shard of a sharded collection, or every
// shard of a sharded collection (a directory with shards.json) in one
// process. Its answers use the collection's docids: a shard's docid d is
// d+FirstDoc, so that a broker merges the answers of the nodes serving a
// collection's shards as they are. The parts are the indexes served, in
// docid order: one index, or the shards; over shards, every engine is a
// query.Sharded, whose hits are the collection's docids already.

// openParts opens the index, or every shard of the sharded collection,
// in dir, kept as mem says, and returns them with the collection's
// manifest (nil for an index, a shard included).
func openParts(dir string, mem index.Memory) ([]*index.Index, *index.Manifest, error) {
	if index.IsSharded(dir) {
		parts, man, err := index.OpenShardedWith(dir, mem)
		if err != nil {
			return nil, nil, err
		}
		return parts, &man, nil
	}
	ix, err := index.OpenWith(dir, mem)
	if err != nil {
		return nil, nil, err
	}
	return []*index.Index{ix}, nil, nil
}

// firstDocs is each part's first docid in the answers.
func firstDocs(parts []*index.Index) []uint32 {
	first := make([]uint32, len(parts))
	for j, p := range parts {
		info, _ := p.Shard()
		first[j] = info.FirstDoc
	}
	return first
}

// openEngine opens the engine registered under name on the parts: over
// shards, a query.Sharded.
func (g *generation) openEngine(name string, o query.Options) (query.Engine, error) {
	if _, ok := g.ix.Shard(); ok {
		return query.OpenSharded(g.parts, name, o)
	}
	return query.Open(g.ix, name, o)
}

// locate returns the part that holds docid (the collection's) and its
// docid there; ok is false outside every part's range.
func (g *generation) locate(docid uint32) (p *index.Index, local uint32, ok bool) {
	for j, part := range g.parts {
		if docid >= g.first[j] && uint64(docid-g.first[j]) < uint64(part.NumDocs()) {
			return part, docid - g.first[j], true
		}
	}
	return nil, 0, false
}

// url is a hit's URL.
func (g *generation) url(docid uint32) string {
	p, d, _ := g.locate(docid)
	return p.URL(d)
}

// docRange describes the docids served, for a 404's message.
func (g *generation) docRange() string {
	if len(g.parts) == 1 && g.first[0] == 0 {
		return fmt.Sprintf("the index holds %d documents", g.ix.NumDocs())
	}
	var rs []string
	for j, p := range g.parts {
		rs = append(rs, fmt.Sprintf("%d to %d", g.first[j], uint64(g.first[j])+uint64(p.NumDocs())-1))
	}
	return "the shards served hold docids " + strings.Join(rs, ", ")
}

// commit names what is served: an index's generation; for a sharded
// collection, its identity, a colon and its shards' generations,
// comma-separated, so that a change of its manifest or of any shard is a
// new commit to reload.
func (g *generation) commit() string {
	var gens []string
	for _, p := range g.parts {
		gens = append(gens, p.Meta().Generation)
	}
	return commitName(g.collection, gens)
}

// commitName is commit's name of a collection's shards' generations, or
// of an index's (collection empty).
func commitName(collection string, gens []string) string {
	if collection == "" {
		return gens[0]
	}
	return collection + ":" + strings.Join(gens, ",")
}

// committed is what commit would name once dir is loaded again: the
// generations its commit points name now.
func committed(dir string) (string, error) {
	if !index.IsSharded(dir) {
		m, err := index.ReadMeta(dir)
		return m.Generation, err
	}
	man, err := index.ReadManifest(dir)
	if err != nil {
		return "", err
	}
	var gens []string
	for _, s := range man.Shards {
		m, err := index.ReadMeta(filepath.Join(dir, s.Dir))
		if err != nil {
			return "", err
		}
		gens = append(gens, m.Generation)
	}
	return commitName(man.Collection, gens), nil
}

// meta summarises the parts' meta.json values: an index's own; over
// several shards, their counts and sizes added up, the collection's
// average length.
func (g *generation) meta() index.Meta {
	m := g.ix.Meta()
	if len(g.parts) == 1 {
		return m
	}
	m.Files = map[string]index.FileMeta{}
	m.Docs, m.Terms, m.Postings, m.Blocks, m.Tokens = 0, 0, 0, 0, 0
	for _, p := range g.parts {
		pm := p.Meta()
		m.Docs += pm.Docs
		m.Terms += pm.Terms
		m.Postings += pm.Postings
		m.Blocks += pm.Blocks
		m.Tokens += pm.Tokens
		for name, f := range pm.Files {
			f.Size += m.Files[name].Size
			m.Files[name] = f
		}
	}
	m.Generation = g.commit()
	m.AvgDocLength = float64(g.ix.AvgDocLen())
	m.Shard = nil
	return m
}

// closeParts closes every part.
func (g *generation) closeParts() error {
	var first error
	for _, p := range g.parts {
		if err := p.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// describeParts describes hits (the collection's docids) with Describe,
// each on the part that holds it, a part's on up to workers goroutines.
func describeParts(g *generation, a *analysis.Analyzer, q query.Query, hits []Hit, snippetBytes int, asHTML bool, workers int) error {
	if len(g.parts) == 1 && g.first[0] == 0 {
		return Describe(g.ix, a, q, hits, snippetBytes, asHTML, workers)
	}
	for _, p := range g.parts {
		var at []int
		var local []Hit
		for i, h := range hits {
			if in, d, ok := g.locate(h.DocID); ok && in == p {
				h.DocID = d
				at, local = append(at, i), append(local, h)
			}
		}
		if len(local) == 0 {
			continue
		}
		if err := Describe(p, a, q, local, snippetBytes, asHTML, workers); err != nil {
			return err
		}
		for k, i := range at {
			local[k].DocID = hits[i].DocID
			hits[i] = local[k]
		}
	}
	return nil
}

// shardStats are the parts' shard sections and generations, for /stats:
// nil for an index that is not a shard.
func (g *generation) shardStats() []ShardStats {
	if _, ok := g.ix.Shard(); !ok {
		return nil
	}
	out := make([]ShardStats, len(g.parts))
	for j, p := range g.parts {
		info, _ := p.Shard()
		out[j] = ShardStats{ShardInfo: info, Docs: uint64(p.NumDocs()), Generation: p.Meta().Generation}
	}
	return slices.Clip(out)
}
