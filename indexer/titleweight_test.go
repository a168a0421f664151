package indexer_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/index/bm25"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// pseudoReference inverts the pseudo-documents a title weight w defines:
// each document's text once and its title (as the index stores it) w more
// times, frequencies and lengths alike.
func pseudoReference(t *testing.T, ix *index.Index, c corpus, w uint32) reference {
	t.Helper()
	ref := invert(c.sortedURLs(), c.textByURL())
	if w == 0 {
		return ref
	}
	a := analysis.New()
	for d := range ref.urls {
		doc, err := ix.Document(uint32(d), false)
		if err != nil {
			t.Fatal(err)
		}
		tfs := map[string]uint32{}
		a.Analyze([]byte(doc.Title), func(term string) { tfs[term]++ })
		for term, tf := range tfs {
			list := ref.lists[term]
			i := sort.Search(len(list), func(i int) bool { return list[i].doc >= uint32(d) })
			if i == len(list) || list[i].doc != uint32(d) {
				list = slices.Insert(list, i, posting{uint32(d), 0})
				ref.postings++
			}
			list[i].tf += w * tf
			ref.lists[term] = list
			ref.lens[d] += w * tf
			ref.tokens += uint64(w * tf)
		}
	}
	ref.terms = ref.terms[:0]
	for term := range ref.lists {
		ref.terms = append(ref.terms, term)
	}
	sort.Strings(ref.terms)
	return ref
}

// bruteTopK scores every document holding a query term (every term, in
// AND) with BM25 over the reference's pseudo-documents, summing in
// query-term order as the engines do, and returns the top k.
func bruteTopK(ref reference, p bm25.Params, q query.Query) []query.Hit {
	n := uint64(len(ref.urls))
	avg := float32(1)
	if n > 0 && ref.tokens > 0 {
		avg = float32(float64(ref.tokens) / float64(n))
	}
	norms := p.Norms(ref.lens, avg)
	scores := map[uint32]float32{}
	matched := map[uint32]int{}
	for _, term := range q.Terms {
		list := ref.lists[term]
		idf := bm25.IDF(n, uint64(len(list)))
		for _, po := range list {
			scores[po.doc] += p.TermScore(idf, po.tf, norms[po.doc])
			matched[po.doc]++
		}
	}
	var hits []query.Hit
	for d, s := range scores {
		if q.Mode == query.And && matched[d] != len(q.Terms) {
			continue
		}
		hits = append(hits, query.Hit{DocID: d, Score: s})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].DocID < hits[j].DocID
	})
	return hits[:min(q.K, len(hits))]
}

// writeReference writes the reference's documents and lists with the
// index writer, as an indexer that never heard of titles would, and
// returns the directory.
func writeReference(t *testing.T, ref reference, w uint32) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ref")
	wr, err := index.NewWriter(dir, index.WriterOptions{DocIDCodec: "fastpfor", FreqCodec: "fastpfor", Order: "url", TitleWeight: w}, ref.lens, ref.urls)
	if err != nil {
		t.Fatal(err)
	}
	for _, term := range ref.terms {
		var docids, freqs []uint32
		for _, p := range ref.lists[term] {
			docids, freqs = append(docids, p.doc), append(freqs, p.tf)
		}
		if err := wr.AddTerm(term, docids, freqs); err != nil {
			t.Fatal(err)
		}
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTitleWeightScoresPseudoDocuments builds a random crawl (HTML titles,
// plain texts' first lines) with title weights 0, 1, 2 and 4: its
// postings, lengths and lexicon must be, byte for byte, those the index
// writer makes of the pseudo-documents (at 0, of the texts alone, with
// no title_weight key in meta.json: today's index), and every engine,
// over the index and over shards of it, must answer random AND and OR
// queries exactly as a brute-force BM25 over them.
func TestTitleWeightScoresPseudoDocuments(t *testing.T) {
	c := genCorpus(11, 250)
	crawl := t.TempDir()
	c.write(t, crawl)
	for _, w := range []uint32{0, 1, 2, 4} {
		t.Run(fmt.Sprintf("w=%d", w), func(t *testing.T) {
			ix, _, out := build(t, crawl, indexer.Options{TitleWeight: int(w), Store: index.StoreTitles, Workers: 2})
			if got := ix.Meta().TitleWeight; got != w {
				t.Fatalf("meta.json records title weight %d, want %d", got, w)
			}
			meta, err := os.ReadFile(filepath.Join(out, "meta.json"))
			if err != nil {
				t.Fatal(err)
			}
			// Weight 0 must write today's meta.json, byte for byte.
			if has := bytes.Contains(meta, []byte("title_weight")); has != (w > 0) {
				t.Errorf("meta.json names title_weight: %v, want %v", has, w > 0)
			}
			ref := pseudoReference(t, ix, c, w)
			compare(t, ix, ref)
			got, want := indexFiles(t, out), indexFiles(t, writeReference(t, ref, w))
			for _, name := range []string{"docids.bin", "freqs.bin", "lexicon.bin", "doclens.bin", "urls.bin"} {
				if !bytes.Equal(got[name], want[name]) {
					t.Errorf("%s differs from the one written of the pseudo-documents", name)
				}
			}
			shards := testindex.Shards(t, ix, 3)
			for _, s := range shards {
				if s.Meta().TitleWeight != w {
					t.Fatalf("shard records title weight %d, want %d", s.Meta().TitleWeight, w)
				}
			}
			r := rand.New(rand.NewPCG(uint64(w), 5))
			ctx := context.Background()
			for _, name := range query.Engines() {
				engines := map[string]query.Engine{}
				var err error
				if engines["index"], err = query.New(ix, name); err != nil {
					t.Fatal(err)
				}
				if engines["shards"], err = query.OpenSharded(shards, name, query.DefaultOptions); err != nil {
					t.Fatal(err)
				}
				for i := range 30 {
					q := query.Query{Mode: []query.Mode{query.And, query.Or}[i%2], K: 1 + r.IntN(15)}
					for range 1 + r.IntN(3) {
						if term := ref.terms[r.IntN(len(ref.terms))]; !slices.Contains(q.Terms, term) {
							q.Terms = append(q.Terms, term)
						}
					}
					want := bruteTopK(ref, ix.BM25(), q)
					for where, eng := range engines {
						got, err := eng.Search(ctx, q)
						if err != nil {
							t.Fatalf("%s over the %s: %v", name, where, err)
						}
						if !slices.Equal(got.Hits, want) && !(len(got.Hits) == 0 && len(want) == 0) {
							t.Errorf("%s over the %s, %v: %v, brute force %v", name, where, q, got.Hits, want)
						}
					}
				}
			}
		})
	}
}

// TestTitleWeightRefused checks the options a title weight refuses, before
// any work.
func TestTitleWeightRefused(t *testing.T) {
	crawl := t.TempDir()
	os.WriteFile(filepath.Join(crawl, "a.txt"), []byte("hello"), 0o644)
	for _, tt := range []struct {
		name string
		opts indexer.Options
		want string
	}{
		{"negative", indexer.Options{TitleWeight: -1}, "out of range"},
		{"too large", indexer.Options{TitleWeight: bm25.MaxTitleWeight + 1}, "out of range"},
		{"with positions", indexer.Options{TitleWeight: 2, Positions: true}, "index.positions: false"},
		{"with passages", indexer.Options{TitleWeight: 2, Passages: 20}, "passages"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "idx")
			_, err := indexer.Build(context.Background(), crawl, dir, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Build() error = %v, want one mentioning %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "meta.json")); err == nil {
				t.Errorf("a refused build wrote an index")
			}
		})
	}
}

// TestUpdateKeepsTitleWeight checks that an update asked for no weight
// parses with the index's, that one asked for another is refused, and
// that segments and their merge keep the weight: the merged index holds a
// fresh build's data files.
func TestUpdateKeepsTitleWeight(t *testing.T) {
	ctx := context.Background()
	c := newRandomCrawl(t, 9, 20)
	dir := filepath.Join(t.TempDir(), "idx")
	o := indexer.Options{TitleWeight: 3, Workers: 2}
	if _, err := indexer.Build(ctx, c.dir, dir, o); err != nil {
		t.Fatal(err)
	}
	c.add()
	if _, err := indexer.Update(ctx, c.dir, dir, indexer.Options{TitleWeight: 2, Workers: 2}); err == nil || !strings.Contains(err.Error(), "title weight 3, not 2") {
		t.Errorf("Update with weight 2 of an index of weight 3 = %v, want a refusal naming both", err)
	}
	for _, w := range []int{0, 3} {
		rep, err := indexer.Update(ctx, c.dir, dir, indexer.Options{TitleWeight: w, Workers: 2, Merge: indexer.MergePolicy{Off: true}})
		if err != nil {
			t.Fatalf("Update with weight %d: %v", w, err)
		}
		m, err := index.ReadMeta(dir)
		if err != nil || m.TitleWeight != 3 || rep.Segments < 2 {
			t.Fatalf("after an update asked for weight %d: title weight %d, %d segments, %v; want weight 3 in segments", w, m.TitleWeight, rep.Segments, err)
		}
		c.add()
	}
	c.step()
	if _, err := indexer.Update(ctx, c.dir, dir, indexer.Options{Workers: 2, Force: true}); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	if _, err := indexer.Build(ctx, c.dir, fresh, o); err != nil {
		t.Fatal(err)
	}
	sameAnswers(t, dir, fresh)
	if _, err := indexer.Merge(ctx, dir, indexer.Options{}, true); err != nil {
		t.Fatal(err)
	}
	if m, err := index.ReadMeta(dir); err != nil || m.TitleWeight != 3 || len(m.Segments) > 0 {
		t.Fatalf("merged: title weight %d, %d segments, %v; want one segment of weight 3", m.TitleWeight, len(m.Segments), err)
	}
	if err := sameData(dir, fresh, false); err != nil {
		t.Fatalf("merged: %v", err)
	}
	sameAnswers(t, dir, fresh)
}
