package index_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// splitGood splits goodIndex into n shards and returns the whole, opened,
// and the collection's directory.
func splitGood(t *testing.T, n int) (*index.Index, string) {
	t.Helper()
	whole := openIndex(t, goodIndex(t))
	out := filepath.Join(t.TempDir(), "coll")
	if _, err := index.Split(context.Background(), whole, out, n, index.SplitOptions{}); err != nil {
		t.Fatal(err)
	}
	return whole, out
}

// TestShardScoresUnderTheCollection: each shard of a split index reports
// its part of the collection, and scores as the whole does: the same
// average length, the same idf of every term, the same norm of every
// document, bit for bit.
func TestShardScoresUnderTheCollection(t *testing.T) {
	whole, out := splitGood(t, 3)
	shards, man, err := index.OpenSharded(out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, s := range shards {
			s.Close()
		}
	}()
	if man.Docs != uint64(whole.NumDocs()) || len(man.Shards) != 3 || man.Tokens != whole.Meta().Tokens {
		t.Fatalf("manifest %+v for %d documents", man, whole.NumDocs())
	}
	if _, ok := whole.Shard(); ok {
		t.Error("the whole index says it is a shard")
	}
	for j, s := range shards {
		info, ok := s.Shard()
		if !ok || info.Index != j || info.Count != 3 || info.FirstDoc != man.Shards[j].FirstDoc || info.Collection != man.Collection {
			t.Fatalf("shard %d: Shard() = %+v, %v; manifest %+v", j, info, ok, man)
		}
		if math.Float32bits(s.AvgDocLen()) != math.Float32bits(whole.AvgDocLen()) {
			t.Errorf("shard %d: average length %v, the whole's %v", j, s.AvgDocLen(), whole.AvgDocLen())
		}
		for d := range uint32(s.NumDocs()) {
			g := d + info.FirstDoc
			if s.URL(d) != whole.URL(g) || s.Norms()[d] != whole.Norms()[g] {
				t.Fatalf("shard %d document %d: %s norm %v, the whole's %d: %s norm %v", j, d, s.URL(d), s.Norms()[d], g, whole.URL(g), whole.Norms()[g])
			}
		}
		for i := range s.NumTerms() {
			ti := s.Term(i)
			wi, _ := whole.Lookup(ti.Term)
			if s.IDF(ti) != whole.IDF(wi) {
				t.Errorf("shard %d term %q: idf %v, the whole's %v", j, ti.Term, s.IDF(ti), whole.IDF(wi))
			}
		}
	}
}

// TestShardBoundsAreScaled: every block bound a shard's cursors report
// (and every list bound Lookup reports) is at least every score of the
// block under the collection's statistics; the bounds as stored, under
// the shard's own statistics, are below some score, so that a pruning
// engine reading them unscaled would skip a document of the top k.
func TestShardBoundsAreScaled(t *testing.T) {
	_, out := splitGood(t, 3)
	shards, _, err := index.OpenSharded(out)
	if err != nil {
		t.Fatal(err)
	}
	below := 0 // stored bounds below a score of their block
	for j, s := range shards {
		defer s.Close()
		sk := s.Skips()
		p := s.BM25()
		for i := range s.NumTerms() {
			ti := s.Term(i)
			idf := s.IDF(ti)
			c := s.Cursor(ti)
			for b := 0; c.DocID() != index.NoMoreDocs; b++ {
				c.ShallowNextGEQ(c.DocID())
				bound, last := c.BlockMaxScore(), c.BlockLastDocID()
				var best float32
				for ; c.DocID() <= last && c.DocID() != index.NoMoreDocs; c.Next() {
					best = max(best, p.TermScore(idf, c.Freq(), s.Norms()[c.DocID()]))
				}
				if bound < best || ti.MaxScore < best {
					t.Fatalf("shard %d term %q block %d: bounds %v (block) and %v (list) below the score %v", j, ti.Term, b, bound, ti.MaxScore, best)
				}
				if sk.BlockMax[int(ti.FirstBlock)+b] < best {
					below++
				}
			}
		}
	}
	if below == 0 {
		t.Error("no stored bound is below a score under the collection's statistics: the test shows nothing")
	}
}

// collectionBin is collection.bin's content, inflated.
type collectionBin struct {
	docs, tokens uint64
	avgLen       uint32
	terms        uint64
	df           []uint64
	extra        []byte
}

func parseCollectionBin(t *testing.T, raw []byte) collectionBin {
	t.Helper()
	r := bytes.NewReader(raw)
	u := func() uint64 {
		v, err := binary.ReadUvarint(r)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	var c collectionBin
	c.docs, c.tokens = u(), u()
	var f [4]byte
	r.Read(f[:])
	c.avgLen = binary.LittleEndian.Uint32(f[:])
	c.terms = u()
	for range c.terms {
		c.df = append(c.df, u())
	}
	return c
}

func (c collectionBin) bytes() []byte {
	b := binary.AppendUvarint(nil, c.docs)
	b = binary.AppendUvarint(b, c.tokens)
	b = binary.LittleEndian.AppendUint32(b, c.avgLen)
	b = binary.AppendUvarint(b, c.terms)
	for _, df := range c.df {
		b = binary.AppendUvarint(b, df)
	}
	return append(b, c.extra...)
}

// TestShardDamaged: a shard whose collection statistics or shard section
// disagree with each other or with the shard is refused with ErrCorrupt,
// naming the file and the value.
func TestShardDamaged(t *testing.T) {
	_, out := splitGood(t, 3)
	good := filepath.Join(out, "shard-01")
	sh := openIndex(t, good)
	own := func(i int) uint64 { return uint64(sh.Term(i).DF) }
	others := uint64(0)
	{
		info, _ := sh.Shard()
		others = info.CollectionDocs - uint64(sh.NumDocs())
	}
	coll := func(edit func(c *collectionBin)) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			editStream(t, dir, "collection.bin", func(raw []byte) []byte {
				c := parseCollectionBin(t, raw)
				edit(&c)
				return c.bytes()
			})
		}
	}
	shardKey := func(edit func(s map[string]any)) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			editMeta(t, dir, func(m map[string]any) { edit(m["shard"].(map[string]any)) })
		}
	}
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   string
	}{
		{"fewer dfs", coll(func(c *collectionBin) { c.terms--; c.df = c.df[1:] }), "dfs of"},
		{"more dfs", coll(func(c *collectionBin) { c.terms++; c.df = append(c.df, 1) }), "dfs of"},
		{"df below the shard's", coll(func(c *collectionBin) { c.df[0] = own(0) - 1 }), "in the shard"},
		{"df beyond the other shards", coll(func(c *collectionBin) { c.df[2] = own(2) + others + 1 }), "other documents"},
		{"documents unlike meta.json", coll(func(c *collectionBin) { c.docs++ }), "collection has"},
		{"tokens below the shard's", coll(func(c *collectionBin) { c.tokens = 1 }), "tokens for a shard"},
		{"average length", coll(func(c *collectionBin) { c.avgLen++ }), "average length"},
		{"data after the dfs", coll(func(c *collectionBin) { c.extra = []byte{7} }), "collection.bin"},
		{"collection below the shard", func(t *testing.T, dir string) {
			shardKey(func(s map[string]any) { s["collection_docs"] = 3; s["first_doc"] = 0 })(t, dir)
		}, "collection of 3"},
		{"no collection identity", shardKey(func(s map[string]any) { s["collection"] = "" }), "no collection identity"},
		{"index past count", shardKey(func(s map[string]any) { s["index"] = 3 }), "shard 3 of 3"},
		{"unknown shard key", shardKey(func(s map[string]any) { s["replicas"] = 2 }), "replicas"},
		{"no shard section", func(t *testing.T, dir string) {
			editMeta(t, dir, func(m map[string]any) { delete(m, "shard") })
		}, "no shard section"},
		{"no collection.bin", func(t *testing.T, dir string) {
			editMeta(t, dir, func(m map[string]any) { delete(m["files"].(map[string]any), "collection.bin") })
		}, "without collection.bin"},
		{"garbage stream", func(t *testing.T, dir string) {
			editFile(t, dir, "collection.bin", func(b []byte) []byte { return append([]byte{0xff, 0xfe}, b[2:]...) })
			resum(t, dir, "collection.bin")
		}, "collection.bin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyIndex(t, good)
			tt.damage(t, dir)
			err := openRefused(t, dir)
			if !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Open = %v, want ErrCorrupt mentioning %q", err, tt.want)
			}
		})
	}
}

// writeFiles writes docs (in URL order) as an index in dir whose sources
// are crawl files of 1 to 5 consecutive documents each.
func writeFiles(t *testing.T, r *rand.Rand, dir string, docs []segDoc) {
	t.Helper()
	lens, urls := make([]uint32, len(docs)), make([]string, len(docs))
	post := map[string]map[uint32]uint32{}
	for i, dc := range docs {
		lens[i], urls[i] = uint32(len(dc.terms)), dc.url
		for _, term := range dc.terms {
			if post[term] == nil {
				post[term] = map[uint32]uint32{}
			}
			post[term][uint32(i)]++
		}
	}
	var srcs []index.Source
	for d := 0; d < len(docs); {
		n := min(1+r.IntN(5), len(docs)-d)
		srcs = append(srcs, index.Source{URL: docs[d].url, Size: 1, Docs: uint32(n)})
		d += n
	}
	w, err := index.NewWriter(dir, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Order: "url"}, lens, urls)
	if err != nil {
		t.Fatal(err)
	}
	for _, term := range slices.Sorted(func(yield func(string) bool) {
		for term := range post {
			if !yield(term) {
				return
			}
		}
	}) {
		ids := slices.Sorted(segKeys(post[term]))
		var freqs []uint32
		for _, id := range ids {
			freqs = append(freqs, post[term][id])
		}
		if err := w.AddTerm(term, ids, freqs); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AddSources(index.SourceOptions{Oversize: "truncate"}, srcs); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSplitKeepsFilesTogether: shards start where a crawl file starts,
// keep their sources, and hold as even a share of the documents as the
// files allow.
func TestSplitKeepsFilesTogether(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 2))
	dir := filepath.Join(t.TempDir(), "ix")
	writeFiles(t, r, dir, randomSegDocs(r, "u", 500))
	whole := openIndex(t, dir)
	_, srcs, _ := whole.Sources()
	starts := map[uint32]bool{}
	d := uint32(0)
	for _, s := range srcs {
		starts[d] = true
		d += s.Docs
	}
	for _, n := range []int{1, 2, 4, 7} {
		out := filepath.Join(t.TempDir(), "coll")
		man, err := index.Split(context.Background(), whole, out, n, index.SplitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for j, s := range man.Shards {
			if !starts[s.FirstDoc] {
				t.Errorf("%d shards: shard %d starts at document %d, inside a crawl file", n, j, s.FirstDoc)
			}
			// A cut moves at most half a file (5 documents) from its
			// even place, each end of a shard.
			if even := float64(whole.NumDocs()) / float64(n); math.Abs(float64(s.Docs)-even) > 5 {
				t.Errorf("%d shards: shard %d holds %d documents, an even share is %.1f", n, j, s.Docs, even)
			}
			ix := openIndex(t, filepath.Join(out, s.Dir))
			if _, ss, ok := ix.Sources(); !ok || ss[0].URL != ix.URL(0) {
				t.Errorf("%d shards: shard %d has sources %v, %v", n, j, ok, ss)
			}
		}
	}
}

// TestSplitSegmentedAnswersAsTheWhole splits a segmented index with
// deletions: the shards, searched together, answer every engine's
// queries in every mode exactly as the segmented index does.
func TestSplitSegmentedAnswersAsTheWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 3))
	dir := filepath.Join(t.TempDir(), "ix")
	d, err := index.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var segs []index.CommitSegment
	where := map[string][2]int{}
	for i := range 3 {
		docs := randomSegDocs(r, "u", 100+r.IntN(200))
		docs = slices.DeleteFunc(docs, func(segDoc) bool { return r.IntN(3) == 0 })
		segs = append(segs, index.CommitSegment{Meta: writeSegDocs(t, d, docs, false), Deleted: roaring.New()})
		for k, dc := range docs {
			if old, ok := where[dc.url]; ok {
				segs[old[0]].Deleted.Add(uint32(old[1]))
			}
			where[dc.url] = [2]int{i, k}
		}
	}
	if _, err := d.CommitSegments(segs, false); err != nil {
		t.Fatal(err)
	}
	d.Unlock()
	whole := openIndex(t, dir)
	if whole.Segments() == nil {
		t.Fatal("the index has no segments")
	}
	out := filepath.Join(t.TempDir(), "coll")
	if _, err := index.Split(context.Background(), whole, out, 3, index.SplitOptions{}); err != nil {
		t.Fatal(err)
	}
	shards, _, err := index.OpenSharded(out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, s := range shards {
			s.Close()
		}
	}()
	ctx := context.Background()
	for _, name := range query.Engines() {
		want, err := query.New(whole, name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := query.OpenSharded(shards, name, query.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 30 {
			q := query.Query{Mode: []query.Mode{query.And, query.Or, query.AndOr}[i%3], K: 1 + r.IntN(20)}
			for range 1 + r.IntN(4) {
				q.Terms = append(q.Terms, fmt.Sprintf("t%d", int(r.ExpFloat64()*20)))
			}
			g, err := got.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			w, err := want.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(g.Hits, w.Hits) {
				t.Fatalf("%s %v: shards %v, the whole %v", name, q, g.Hits, w.Hits)
			}
		}
	}
}

// TestSplitRefuses: clear errors for what Split cannot do.
func TestSplitRefuses(t *testing.T) {
	whole, out := splitGood(t, 2)
	shard := openIndex(t, filepath.Join(out, "shard-00"))
	tests := []struct {
		name string
		src  *index.Index
		out  string
		n    int
		want string
	}{
		{"a shard", shard, filepath.Join(t.TempDir(), "x"), 2, "is a shard already"},
		{"no shards", whole, filepath.Join(t.TempDir(), "x"), 0, "at least 1"},
		{"more shards than documents", whole, filepath.Join(t.TempDir(), "x"), whole.NumDocs() + 1, "at most one shard per file"},
		{"into an index", whole, whole.Dir(), 2, "holds an index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := index.Split(context.Background(), tt.src, tt.out, tt.n, index.SplitOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Split = %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
}

// TestManifestDamaged: a damaged shards.json, or a shard that is not the
// one it names, is refused.
func TestManifestDamaged(t *testing.T) {
	_, out := splitGood(t, 3)
	_, other := splitGood(t, 3)
	orig, err := os.ReadFile(filepath.Join(out, index.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	rewrite := func(t *testing.T, dir string, edit func(c map[string]any)) {
		t.Helper()
		var c map[string]any
		editJSON(t, orig, func(m map[string]any) { c = m["collection"].(map[string]any) })
		edit(c)
		body, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		env := fmt.Appendf(nil, `{"version": 1, "crc32c": %d, "collection": %s}`, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)), body)
		if err := os.WriteFile(filepath.Join(dir, index.ManifestFile), env, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   string
	}{
		{"checksum", func(t *testing.T, dir string) {
			b := bytes.Replace(orig, []byte(`"docs": `), []byte(`"docs": 1`), 1)
			os.WriteFile(filepath.Join(dir, index.ManifestFile), b, 0o644)
		}, "checksum"},
		{"gap between shards", func(t *testing.T, dir string) {
			rewrite(t, dir, func(c map[string]any) {
				c["shards"].([]any)[1].(map[string]any)["first_doc"] = 1
			})
		}, "shards before it end"},
		{"a directory outside", func(t *testing.T, dir string) {
			rewrite(t, dir, func(c map[string]any) { c["shards"].([]any)[0].(map[string]any)["dir"] = "../x" })
		}, "not a fresh name"},
		{"unknown key", func(t *testing.T, dir string) {
			rewrite(t, dir, func(c map[string]any) { c["replicas"] = 2 })
		}, "replicas"},
		{"a shard of another collection", func(t *testing.T, dir string) {
			os.RemoveAll(filepath.Join(dir, "shard-01"))
			if err := os.CopyFS(filepath.Join(dir, "shard-01"), os.DirFS(filepath.Join(other, "shard-01"))); err != nil {
				t.Fatal(err)
			}
		}, "another collection"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "coll")
			if err := os.CopyFS(dir, os.DirFS(out)); err != nil {
				t.Fatal(err)
			}
			tt.damage(t, dir)
			_, _, err := index.OpenSharded(dir)
			if !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("OpenSharded = %v, want ErrCorrupt mentioning %q", err, tt.want)
			}
		})
	}
}

// FuzzCollection feeds arbitrary records to Open through a shard's
// collection.bin (checksum fixed): Open must refuse them with ErrCorrupt
// or give a shard whose every accessor and cursor stays in bounds.
func FuzzCollection(f *testing.F) {
	whole := openIndex(f, goodIndex(f))
	out := filepath.Join(f.TempDir(), "coll")
	if _, err := index.Split(context.Background(), whole, out, 2, index.SplitOptions{}); err != nil {
		f.Fatal(err)
	}
	good := filepath.Join(out, "shard-01")
	b, err := os.ReadFile(dataPath(f, good, "collection.bin"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(inflate(f, b))
	f.Fuzz(func(t *testing.T, records []byte) {
		dir := copyIndex(t, good)
		editStream(t, dir, "collection.bin", func([]byte) []byte { return records })
		if openErr, err := exercise(dir); err != nil {
			t.Fatal(err)
		} else if openErr != nil && !errors.Is(openErr, index.ErrCorrupt) {
			t.Fatalf("Open error = %v, want ErrCorrupt", openErr)
		}
	})
}
