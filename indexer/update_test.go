package indexer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// randomCrawl is a crawl directory the update tests change at random.
// Every file it writes gets a modification time of its own, a second
// after the last: file systems keep times at the clock's tick, and a
// file rewritten with the same size within one tick of its indexing would
// look unchanged (docs/updates.md, caveats).
type randomCrawl struct {
	t     *testing.T
	r     *rand.Rand
	dir   string
	files []string // relative paths
	next  int      // the next file's number
	clock time.Time
	// stale holds the files touched since the last commit: the index
	// still records their old size or modification time.
	stale map[string]bool
}

func newRandomCrawl(t *testing.T, seed uint64, n int) *randomCrawl {
	c := &randomCrawl{t: t, r: rand.New(rand.NewPCG(seed, 7)), dir: t.TempDir(), clock: time.Unix(1_700_000_000, 0), stale: map[string]bool{}}
	for range n {
		c.add()
	}
	return c
}

// content is a random page: mostly short, some long enough for their
// stored text to be cut into pieces, HTML or text.
func (c *randomCrawl) content(name string) []byte {
	l := 5 + c.r.IntN(60)
	if c.r.IntN(6) == 0 {
		l = 300 + c.r.IntN(900)
	}
	words := make([]string, l)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx", int(c.r.ExpFloat64()*15)%200)
	}
	body := strings.Join(words, " ")
	if strings.HasSuffix(name, ".html") {
		return fmt.Appendf(nil, "<html><head><title>%s</title></head><body><p>%s</p></body></html>", words[0], body)
	}
	return []byte(body)
}

// write writes a file and gives it the next modification time.
func (c *randomCrawl) write(rel string, data []byte) {
	p := filepath.Join(c.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		c.t.Fatal(err)
	}
	c.touch(rel)
}

func (c *randomCrawl) touch(rel string) {
	c.clock = c.clock.Add(time.Second)
	if err := os.Chtimes(filepath.Join(c.dir, rel), c.clock, c.clock); err != nil {
		c.t.Fatal(err)
	}
}

func (c *randomCrawl) add() {
	ext := []string{".html", ".txt", ".md"}[c.r.IntN(3)]
	rel := fmt.Sprintf("example.com/d%d/p%04d%s", c.next%3, c.next, ext)
	c.next++
	c.write(rel, c.content(rel))
	c.files = append(c.files, rel)
}

// pick removes and returns a random file's path, or "" if none is left.
func (c *randomCrawl) pick() string {
	if len(c.files) == 0 {
		return ""
	}
	i := c.r.IntN(len(c.files))
	rel := c.files[i]
	c.files = slices.Delete(c.files, i, i+1)
	return rel
}

// step changes the crawl at random and returns the counts an update must
// report.
func (c *randomCrawl) step() indexer.UpdateReport {
	var want indexer.UpdateReport
	var keep []string
	for range c.r.IntN(4) {
		c.add()
		want.Added++
	}
	added := c.files[len(c.files)-want.Added:]
	c.files = c.files[:len(c.files)-want.Added]
	for range c.r.IntN(4) {
		if rel := c.pick(); rel != "" {
			os.Remove(filepath.Join(c.dir, rel))
			delete(c.stale, rel)
			want.Removed++
		}
	}
	for range c.r.IntN(4) {
		if rel := c.pick(); rel != "" {
			old, err := os.ReadFile(filepath.Join(c.dir, rel))
			if err != nil {
				c.t.Fatal(err)
			}
			c.write(rel, append(old, fmt.Sprintf(" w%dx changed", c.r.IntN(200))...))
			delete(c.stale, rel)
			keep = append(keep, rel)
			want.Changed++
		}
	}
	for range c.r.IntN(3) {
		if rel := c.pick(); rel != "" {
			if c.r.IntN(2) == 0 { // rewritten with the same bytes
				old, err := os.ReadFile(filepath.Join(c.dir, rel))
				if err != nil {
					c.t.Fatal(err)
				}
				c.write(rel, old)
			} else {
				c.touch(rel)
			}
			keep = append(keep, rel)
			c.stale[rel] = true
		}
	}
	want.Touched = len(c.stale)
	c.files = append(append(c.files, keep...), added...)
	want.Unchanged = len(c.files) - want.Added - want.Changed - want.Touched
	return want
}

// TestUpdateEqualsFreshBuild changes random crawls by random steps of
// added, changed, removed and touched files and updates the index after
// each: its data files must equal, byte for byte, those of a fresh build
// of the crawl (sources.bin too once the update committed), and every
// engine must answer random queries on it exactly as the exhaustive
// reference does on the fresh build.
func TestUpdateEqualsFreshBuild(t *testing.T) {
	for _, tt := range []struct {
		name  string
		o     indexer.Options
		merge indexer.MergePolicy // the updates'
	}{
		{"text-positions", indexer.Options{Store: index.StoreText, Positions: true}, indexer.MergePolicy{}},
		// Segments pile up: every update adds one and deletes in the others.
		{"unmerged-positions", indexer.Options{Store: index.StoreText, Positions: true}, indexer.MergePolicy{Off: true}},
		{"unmerged-passages", indexer.Options{Store: index.StoreTitles, Passages: 20}, indexer.MergePolicy{Off: true}},
		{"titles", indexer.Options{Store: index.StoreTitles, DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}, indexer.MergePolicy{}},
		{"passages-positions", indexer.Options{Store: index.StoreText, Positions: true, Passages: 20}, indexer.MergePolicy{}},
		{"none-truncated", indexer.Options{Store: index.StoreNone, MaxDocBytes: 600}, indexer.MergePolicy{}},
		{"title-weight", indexer.Options{Store: index.StoreTitles, TitleWeight: 2}, indexer.MergePolicy{}},
		{"unmerged-title-weight", indexer.Options{Store: index.StoreNone, TitleWeight: 4}, indexer.MergePolicy{Off: true}},
		{"oversize-skipped", indexer.Options{Store: index.StoreText, MaxDocBytes: 600, Oversize: "skip"}, indexer.MergePolicy{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			o := tt.o
			o.Workers = 2
			c := newRandomCrawl(t, uint64(len(tt.name)), 40)
			dir := filepath.Join(t.TempDir(), "idx")
			if _, err := indexer.Build(ctx, c.dir, dir, o); err != nil {
				t.Fatal(err)
			}
			segments := 1
			for step := range 6 {
				want := c.step()
				rep, err := indexer.Update(ctx, c.dir, dir, indexer.Options{Workers: 2, Force: true, Merge: tt.merge})
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				if rep.Committed {
					clear(c.stale)
				}
				got := counts(rep)
				if tt.o.MaxDocBytes == 0 && got != counts(want) { // a cut file may change past its cut, or grow past the limit
					t.Errorf("step %d: added, changed, removed, unchanged, touched %v, want %v", step, got, counts(want))
				}
				if rep.Committed != (rep.Added+rep.Changed+rep.Removed > 0) {
					t.Errorf("step %d: committed %v after %v", step, rep.Committed, got)
				}
				fresh := filepath.Join(t.TempDir(), "fresh")
				if _, err := indexer.Build(ctx, c.dir, fresh, o); err != nil {
					t.Fatal(err)
				}
				if err := sameData(dir, fresh, rep.Committed); err != nil {
					t.Fatalf("step %d (%v): %v", step, got, err)
				}
				sameAnswers(t, dir, fresh)
				boundsHold(t, dir)
				segments = max(segments, rep.Segments)
			}
			if tt.merge.Off && segments < 4 {
				t.Errorf("at most %d segments: the test meant to search many", segments)
			}
			// Merging everything gives the fresh build's data files.
			if _, err := indexer.Merge(ctx, dir, indexer.Options{}, true); err != nil {
				t.Fatal(err)
			}
			fresh := filepath.Join(t.TempDir(), "fresh")
			if _, err := indexer.Build(ctx, c.dir, fresh, o); err != nil {
				t.Fatal(err)
			}
			if m, err := index.ReadMeta(dir); err != nil || len(m.Segments) > 0 {
				t.Fatalf("after merging all: %d segments, %v", len(m.Segments), err)
			}
			if err := sameData(dir, fresh, false); err != nil {
				t.Fatalf("merged: %v", err)
			}
			sameAnswers(t, dir, fresh)
		})
	}
}

// counts are an update's added, changed, removed, unchanged and touched
// files.
func counts(r indexer.UpdateReport) [5]int {
	return [5]int{r.Added, r.Changed, r.Removed, r.Unchanged, r.Touched}
}

// sameData compares two indexes' data files byte for byte, sources.bin
// only if withSources, and the stored texts by what they read (an update
// keeps the old index's dictionary, a build samples its own). An update
// left in segments is compared by what it reads: each document's URL,
// title and text.
func sameData(got, want string, withSources bool) error {
	if m, err := index.ReadMeta(got); err != nil || len(m.Segments) > 0 {
		return testindex.SameTexts(got, want)
	}
	read := func(dir string) (map[string][]byte, error) {
		m, err := index.ReadMeta(dir)
		if err != nil {
			return nil, err
		}
		out := map[string][]byte{}
		for name := range m.Files {
			if name == "sources.bin" && !withSources || name == "textwords.bin" {
				continue
			}
			if out[name], err = os.ReadFile(filepath.Join(dir, m.Generation, name)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	g, err := read(got)
	if err != nil {
		return err
	}
	w, err := read(want)
	if err != nil {
		return err
	}
	if len(g) != len(w) {
		return fmt.Errorf("%d data files, a fresh build %d", len(g), len(w))
	}
	for name, b := range w {
		if !bytes.Equal(g[name], b) {
			return fmt.Errorf("%s differs from a fresh build's (%d bytes, want %d)", name, len(g[name]), len(b))
		}
	}
	return testindex.SameTexts(got, want)
}

// sameAnswers runs random queries over the fresh index's terms, in every
// mode, on every registered engine over the updated index, and compares
// each answer with the exhaustive engine's on the fresh index.
func sameAnswers(t *testing.T, got, want string) {
	t.Helper()
	gix, err := index.Open(got)
	if err != nil {
		t.Fatal(err)
	}
	defer gix.Close()
	wix, err := index.Open(want)
	if err != nil {
		t.Fatal(err)
	}
	defer wix.Close()
	ref, err := query.New(wix, "exhaustive")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(wix.NumDocs()), 3))
	ctx := context.Background()
	for _, name := range query.Engines() {
		eng, err := query.New(gix, name)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 12 {
			q := query.Query{Mode: []query.Mode{query.And, query.Or, query.AndOr}[i%3], K: 1 + r.IntN(12)}
			for range 1 + r.IntN(3) {
				if term := wix.Term(r.IntN(wix.NumTerms())).Term; !slices.Contains(q.Terms, term) {
					q.Terms = append(q.Terms, term)
				}
			}
			w, err := ref.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			g, err := eng.Search(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !slices.Equal(g.Hits, w.Hits) {
				t.Errorf("%s %v: %v, the fresh build's reference %v", name, q, g.Hits, w.Hits)
			}
		}
	}
}

// TestUpdateRefuses checks that an update needs an index that records its
// sources, and leaves a directory without one as it was.
func TestUpdateRefuses(t *testing.T) {
	ctx := context.Background()
	crawl := newRandomCrawl(t, 1, 3).dir
	empty := filepath.Join(t.TempDir(), "none")
	if _, err := indexer.Update(ctx, crawl, empty, indexer.Options{}); err == nil || !strings.Contains(err.Error(), "gpusearch index") {
		t.Errorf("Update of a directory without an index = %v, want an error saying to build one", err)
	}
	if _, err := os.Stat(empty); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Update of a missing directory created it: %v", err)
	}
	old := testindex.Write(t, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Order: "url"},
		[]uint32{1}, []string{"a"}, testindex.Postings{Term: "t", DocIDs: []uint32{0}, Freqs: []uint32{1}})
	dir := old.Dir()
	old.Close()
	if _, err := indexer.Update(ctx, crawl, dir, indexer.Options{}); !errors.Is(err, indexer.ErrNoSources) || !strings.Contains(err.Error(), "rebuild") {
		t.Errorf("Update of an index without sources = %v, want ErrNoSources saying to rebuild", err)
	}
	crawlOrder := filepath.Join(t.TempDir(), "crawl-order")
	if _, err := indexer.Build(ctx, crawl, crawlOrder, indexer.Options{Order: "crawl"}); err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Update(ctx, crawl, crawlOrder, indexer.Options{}); err == nil || !strings.Contains(err.Error(), "URL order") {
		t.Errorf("Update of an index in crawl order = %v, want an error about URL order", err)
	}
}

// boundsHold checks that every posting of every segment of the index in
// dir scores, under the collection's statistics, at most its list's and
// its block's bounds as the segment's cursors give them.
func boundsHold(t *testing.T, dir string) {
	t.Helper()
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, p := range ix.Segments() {
		params, norms := p.BM25(), p.Norms()
		for i := range p.NumTerms() {
			info := p.Term(i)
			idf := p.IDF(info)
			c := p.Cursor(info)
			for d := c.DocID(); d != index.NoMoreDocs; d = c.Next() {
				c.ShallowNextGEQ(d)
				s := params.TermScore(idf, c.Freq(), norms[d])
				if s > c.BlockMaxScore() || s > info.MaxScore {
					t.Fatalf("segment %s, term %q, document %d: score %v above its bounds %v (block), %v (list)",
						p.Meta().Generation, info.Term, d, s, c.BlockMaxScore(), info.MaxScore)
				}
			}
		}
	}
}
