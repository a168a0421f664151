package index_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// segDoc is a test document: its URL and its terms.
type segDoc struct {
	url   string
	terms []string
}

// writeSegDocs writes docs (in URL order) as a segment of d, each its own
// source, and returns its meta.json value; with commit it commits it as
// the whole index instead.
func writeSegDocs(t *testing.T, d *index.Dir, docs []segDoc, commit bool) index.Meta {
	t.Helper()
	lens, urls := make([]uint32, len(docs)), make([]string, len(docs))
	post := map[string]map[uint32]uint32{}
	srcs := make([]index.Source, len(docs))
	for i, dc := range docs {
		lens[i], urls[i] = uint32(len(dc.terms)), dc.url
		srcs[i] = index.Source{URL: dc.url, Size: int64(len(dc.terms)), Docs: 1}
		for _, term := range dc.terms {
			if post[term] == nil {
				post[term] = map[uint32]uint32{}
			}
			post[term][uint32(i)]++
		}
	}
	opts := index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Order: "url"}
	var w *index.Writer
	var err error
	if commit {
		w, err = d.NewWriter(opts, lens, urls)
	} else {
		w, err = d.NewSegmentWriter(opts, lens, urls)
	}
	if err != nil {
		t.Fatal(err)
	}
	terms := make([]string, 0, len(post))
	for term := range post {
		terms = append(terms, term)
	}
	slices.Sort(terms)
	for _, term := range terms {
		var ids, freqs []uint32
		for _, id := range slices.Sorted(segKeys(post[term])) {
			ids, freqs = append(ids, id), append(freqs, post[term][id])
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
	return w.Segment()
}

func segKeys(m map[uint32]uint32) func(func(uint32) bool) {
	return func(yield func(uint32) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// randomSegDocs makes n documents of random terms over a small vocabulary,
// their URLs prefix+i.
func randomSegDocs(r *rand.Rand, prefix string, n int) []segDoc {
	out := make([]segDoc, n)
	for i := range out {
		out[i].url = fmt.Sprintf("%s%04d", prefix, i)
		for range 1 + r.IntN(300) {
			out[i].terms = append(out[i].terms, fmt.Sprintf("t%d", int(r.ExpFloat64()*20)))
		}
	}
	return out
}

// TestSegmentsAnswerAsAFreshBuild writes random segments by hand, deletes
// documents in them (each live URL once), and checks that the segmented
// index numbers, reads and answers as one segment written of its live
// documents: every engine, every mode, bit for bit, with lists long
// enough for the block bounds to prune.
func TestSegmentsAnswerAsAFreshBuild(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			dir := filepath.Join(t.TempDir(), "ix")
			d, err := index.LockDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Unlock()
			// Segment i holds versions of URLs u0000..; a URL's newest
			// version lives, older ones are deleted.
			var segs []index.CommitSegment
			live := map[string]segDoc{}
			where := map[string][2]int{} // URL -> segment, docid
			for i := range 1 + int(seed) + r.IntN(3) {
				docs := randomSegDocs(r, "u", 50+r.IntN(400))
				docs = slices.DeleteFunc(docs, func(segDoc) bool { return r.IntN(3) == 0 })
				segs = append(segs, index.CommitSegment{Meta: writeSegDocs(t, d, docs, false), Deleted: roaring.New()})
				for k, dc := range docs {
					if old, ok := where[dc.url]; ok {
						segs[old[0]].Deleted.Add(uint32(old[1]))
					}
					where[dc.url], live[dc.url] = [2]int{i, k}, dc
				}
			}
			if _, err := d.CommitSegments(segs, false); err != nil {
				t.Fatal(err)
			}
			// Mapped and HugePages in turn, against a fresh build mapped.
			ix, err := index.OpenWith(dir, []index.Memory{index.Mapped, index.HugePages}[seed%2])
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()

			var fresh []segDoc
			for _, u := range slices.Sorted(func(yield func(string) bool) {
				for u := range live {
					if !yield(u) {
						return
					}
				}
			}) {
				fresh = append(fresh, live[u])
			}
			fdir := filepath.Join(t.TempDir(), "fresh")
			fd, err := index.LockDir(fdir)
			if err != nil {
				t.Fatal(err)
			}
			writeSegDocs(t, fd, fresh, true)
			fd.Unlock()
			want, err := index.Open(fdir)
			if err != nil {
				t.Fatal(err)
			}
			defer want.Close()

			if ix.NumDocs() != want.NumDocs() || ix.AvgDocLen() != want.AvgDocLen() {
				t.Fatalf("%d documents of average length %v, a fresh build %d of %v", ix.NumDocs(), ix.AvgDocLen(), want.NumDocs(), want.AvgDocLen())
			}
			for dd := range uint32(want.NumDocs()) {
				if ix.URL(dd) != want.URL(dd) || ix.DocLen(dd) != want.DocLen(dd) {
					t.Fatalf("document %d: %s of %d terms, a fresh build's %s of %d", dd, ix.URL(dd), ix.DocLen(dd), want.URL(dd), want.DocLen(dd))
				}
			}
			ref, err := query.New(want, "exhaustive")
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			for _, name := range query.Engines() {
				eng, err := query.New(ix, name)
				if err != nil {
					t.Fatal(err)
				}
				for i := range 30 {
					q := query.Query{Mode: []query.Mode{query.And, query.Or, query.AndOr}[i%3], K: 1 + r.IntN(20)}
					for range 1 + r.IntN(4) {
						q.Terms = append(q.Terms, fmt.Sprintf("t%d", int(r.ExpFloat64()*20)))
					}
					g, err := eng.Search(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					w, err := ref.Search(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(g.Hits, w.Hits) {
						t.Fatalf("%s %v: %v, a fresh build's %v", name, q, g.Hits, w.Hits)
					}
				}
			}
		})
	}
}

// registerGPUDriver registers the test's GPU driver once, however many
// times the test runs (-count).

// TestCommitSegmentsRefusesMixedTitleWeights checks that segments whose
// frequencies fold in different title weights are never committed as one
// index, that segments of one weight commit and open under it, and that a
// commit point edited to name segments of two weights does not open.
func TestCommitSegmentsRefusesMixedTitleWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	dir := filepath.Join(t.TempDir(), "ix")
	d, err := index.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Unlock()
	a := writeSegDocs(t, d, randomSegDocs(r, "a", 20), false)
	b := writeSegDocs(t, d, randomSegDocs(r, "b", 20), false)
	b.TitleWeight = 2
	_, err = d.CommitSegments([]index.CommitSegment{{Meta: a}, {Meta: b}}, false)
	if err == nil || !strings.Contains(err.Error(), "title weight") {
		t.Errorf("CommitSegments of weights 0 and 2 = %v, want a refusal naming the title weight", err)
	}
	if _, err := index.ReadMeta(dir); err == nil {
		t.Error("a refused commit left a commit point")
	}
	a.TitleWeight = 2
	if _, err := d.CommitSegments([]index.CommitSegment{{Meta: a}, {Meta: b}}, false); err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if w := ix.Meta().TitleWeight; w != 2 || len(ix.Segments()) != 2 {
		t.Errorf("opened title weight %d, %d segments; want 2 and 2", w, len(ix.Segments()))
	}
	ix.Close()
	editMeta(t, dir, func(m map[string]any) {
		delete(m["segments"].([]any)[1].(map[string]any)["meta"].(map[string]any), "title_weight")
	})
	if _, err := index.Open(dir); !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), "title weight") {
		t.Errorf("Open of segments of weights 2 and 0 = %v, want ErrCorrupt naming the title weight", err)
	}
}
