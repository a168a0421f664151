package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// flipCrawl is a copy of the sample crawl that switches between two
// states, each file exactly as it was the last time the crawl was in that
// state (bytes and modification time): A, and B, with 40 files removed
// and 20 rewritten.
type flipCrawl struct {
	dir, stash string
	removed    []string
	rewritten  map[string][2][]byte // per file, its A and B contents
	inB        bool
}

func newFlipCrawl(t *testing.T) *flipCrawl {
	c := &flipCrawl{dir: filepath.Join(t.TempDir(), "crawl"), stash: t.TempDir(), rewritten: map[string][2][]byte{}}
	var files []string
	err := filepath.WalkDir(sampleCrawl, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(sampleCrawl, p)
		data, err := os.ReadFile(p)
		if err == nil {
			err = c.write(rel, data, 0)
		}
		files = append(files, rel)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	for i := range 60 {
		rel := files[i*(len(files)/60)]
		if i < 40 {
			c.removed = append(c.removed, rel)
			continue
		}
		a, err := os.ReadFile(filepath.Join(c.dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		c.rewritten[rel] = [2][]byte{a, append(slices.Clone(a), "<p>rewritten zyzzyva</p>"...)}
	}
	return c
}

// write writes a crawl file with the modification time of state k.
func (c *flipCrawl) write(rel string, data []byte, k int) error {
	p := filepath.Join(c.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return err
	}
	mtime := time.Unix(1_700_000_000+int64(k), 0)
	return os.Chtimes(p, mtime, mtime)
}

// flip switches the crawl to the other state. The removed files wait in
// the stash, flat; renames keep their modification times.
func (c *flipCrawl) flip(t *testing.T) {
	for _, rel := range c.removed {
		in, out := filepath.Join(c.dir, rel), filepath.Join(c.stash, strings.ReplaceAll(rel, "/", "%"))
		if c.inB {
			in, out = out, in
		}
		if err := os.Rename(in, out); err != nil {
			t.Fatal(err)
		}
	}
	c.inB = !c.inB
	k := map[bool]int{false: 0, true: 1}[c.inB]
	for rel, v := range c.rewritten {
		if err := c.write(rel, v[k], k); err != nil {
			t.Fatal(err)
		}
	}
}

// TestUpdateKilledAnyInstant kills `index --update` with SIGKILL at
// random instants while it brings an index from one state of a crawl to
// the other: after every kill the directory holds the old index or the
// new one, each equal, file for file (texts: by what they read), to a
// fresh build of its state, and opening; a completed update leaves nothing of the killed ones.
func TestUpdateKilledAnyInstant(t *testing.T) {
	c := newFlipCrawl(t)
	freshDir := map[bool]string{}
	for range 2 {
		dir := filepath.Join(t.TempDir(), "fresh")
		mustRun(t, "index", "--quiet", "--out", dir, c.dir)
		freshDir[c.inB] = dir
		c.flip(t)
	}
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, "index", "--quiet", "--out", out, c.dir)
	// An update leaves segments: the index is told by what it reads and
	// answers, which must be a fresh build's.
	state := func() bool {
		t.Helper()
		for _, s := range []bool{false, true} {
			if sameIndex(out, freshDir[s]) == nil {
				return s
			}
		}
		t.Fatalf("the index is neither state's fresh build: %v; %v", sameIndex(out, freshDir[false]), sameIndex(out, freshDir[true]))
		return false
	}
	args := []string{"index", "--update", "--quiet", "--out", out, c.dir}
	start := time.Now()
	c.flip(t)
	mustRun(t, args...)
	took := time.Since(start)
	if state() != c.inB {
		t.Fatalf("a completed update left the old index")
	}
	landed := map[string]int{}
	for k := range 8 {
		if state() == c.inB {
			c.flip(t)
		}
		delay := killWithin(t, took, args...)
		what := map[bool]string{true: "new", false: "old"}[state() == c.inB]
		landed[what]++
		t.Logf("kill %d after %v: the %s index", k, delay.Round(time.Millisecond), what)
	}
	t.Logf("%d kills left the old index, %d the new", landed["old"], landed["new"])
	if state() == c.inB {
		c.flip(t)
	}
	res := mustRun(t, "index", "--update", "--quiet", "--json", "--out", out, c.dir)
	var rep struct{ Added, Changed, Removed, Unchanged, Touched int }
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rep.Added, rep.Changed, rep.Removed, rep.Touched); got != map[bool]string{true: "0 20 40 0", false: "40 20 0 0"}[c.inB] {
		t.Errorf("update to state B=%v: added, changed, removed, touched %s", c.inB, got)
	}
	if state() != c.inB {
		t.Errorf("a completed update left the old index")
	}
	onlyCommitted(t, out, "update")
}

// TestUpdateCLI checks index --update's refusals and its report when
// nothing changed.
func TestUpdateCLI(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	res := runCLI(t, "index", "--update", "--out", out, sampleCrawl)
	if res.code != 1 || !strings.Contains(res.stderr, "gpusearch index") {
		t.Errorf("update without an index: exit %d, stderr %q; want 1 and a hint to build one", res.code, res.stderr)
	}
	res = runCLI(t, "index", "--update", "--codec", "bp128", "--out", out, sampleCrawl)
	if res.code != 2 || !strings.Contains(res.stderr, "--codec") {
		t.Errorf("update with --codec: exit %d, stderr %q; want 2 naming --codec", res.code, res.stderr)
	}
	mustRun(t, "index", "--quiet", "--out", out, sampleCrawl)
	before, _ := committed(t, out)
	res = mustRun(t, "index", "--update", "--out", out, sampleCrawl)
	if !strings.Contains(res.stderr, "nothing changed") {
		t.Errorf("update of an unchanged crawl: stderr %q, want it to say nothing changed", res.stderr)
	}
	if after, _ := committed(t, out); !maps.Equal(after, before) {
		t.Errorf("an update of an unchanged crawl changed the index")
	}
}

// sameIndex reports how the index in got differs from the fresh build in
// want: each document's URL, title and text, and the answers of every
// engine to one-term and two-term OR queries over want's terms.
func sameIndex(got, want string) error {
	if err := testindex.SameTexts(got, want); err != nil {
		return err
	}
	g, err := index.Open(got)
	if err != nil {
		return err
	}
	defer g.Close()
	w, err := index.Open(want)
	if err != nil {
		return err
	}
	defer w.Close()
	ref, err := query.New(w, "exhaustive")
	if err != nil {
		return err
	}
	for _, name := range []string{"exhaustive", "bmw", "maxscore"} {
		eng, err := query.New(g, name)
		if err != nil {
			return err
		}
		for i := 0; i < w.NumTerms(); i += 7 {
			q := query.Query{Terms: []string{w.Term(i).Term, w.Term((i * 13) % w.NumTerms()).Term}, Mode: query.Or, K: 10}
			a, err := eng.Search(context.Background(), q)
			if err != nil {
				return err
			}
			b, err := ref.Search(context.Background(), q)
			if err != nil {
				return err
			}
			if !slices.Equal(a.Hits, b.Hits) {
				return fmt.Errorf("%s %v: %v, a fresh build's %v", name, q.Terms, a.Hits, b.Hits)
			}
		}
	}
	return nil
}

// TestMergeCLI updates an index with the merge policy off, so that it
// keeps two segments, and merges them with merge --all: one segment that
// reads and answers as a fresh build of the crawl.
func TestMergeCLI(t *testing.T) {
	c := newFlipCrawl(t)
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, "index", "--quiet", "--out", out, c.dir)
	c.flip(t)
	cfg := filepath.Join(t.TempDir(), "nomerge.yaml")
	if err := os.WriteFile(cfg, []byte("index:\n  merge:\n    policy: off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "index", "--update", "--quiet", "--config", cfg, "--out", out, c.dir)
	if m, err := index.ReadMeta(out); err != nil || len(m.Segments) != 2 {
		t.Fatalf("after an update with the policy off: %d segments, %v; want 2", len(m.Segments), err)
	}
	// inspect lists a segmented index's top terms, df added up over
	// its segments.
	var in struct {
		TopTerms []struct {
			Term string
			DF   uint32
		} `json:"top_terms"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "inspect", "--json", "--top", "3", "--index", out).stdout), &in); err != nil || len(in.TopTerms) != 3 {
		t.Fatalf("inspect of two segments: %+v, %v; want 3 top terms", in, err)
	}
	ix, err := index.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range in.TopTerms {
		var df uint32
		for _, p := range ix.Segments() {
			if info, ok := p.Lookup(tt.Term); ok {
				df += info.DF
			}
		}
		if df != tt.DF {
			t.Errorf("inspect: %q df %d, the segments' %d", tt.Term, tt.DF, df)
		}
	}
	ix.Close()
	res := mustRun(t, "merge", "--json", "--out", out)
	var rep struct{ Inputs, Segments, Documents int }
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Segments != 2 {
		t.Errorf("merge by the default policy of a large and a small segment: %+v, want them kept", rep)
	}
	res = mustRun(t, "merge", "--all", "--json", "--out", out)
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Inputs != 2 || rep.Segments != 1 {
		t.Errorf("merge --all: %+v, want 2 inputs into 1 segment", rep)
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	mustRun(t, "index", "--quiet", "--out", fresh, c.dir)
	if err := sameIndex(out, fresh); err != nil {
		t.Error(err)
	}
	onlyCommitted(t, out, "merge")
}

// TestMergeKilledAnyInstant kills `merge --all` with SIGKILL at random
// instants while it merges an index of two segments: after every kill
// the directory holds the two segments or the merged one, either reading
// and answering as a fresh build of the crawl; the next merge completes
// and leaves nothing of the killed ones.
func TestMergeKilledAnyInstant(t *testing.T) {
	c := newFlipCrawl(t)
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, "index", "--quiet", "--out", out, c.dir)
	c.flip(t)
	fresh := filepath.Join(t.TempDir(), "fresh")
	mustRun(t, "index", "--quiet", "--out", fresh, c.dir)
	cfg := filepath.Join(t.TempDir(), "nomerge.yaml")
	if err := os.WriteFile(cfg, []byte("index:\n  merge:\n    policy: off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "index", "--update", "--quiet", "--config", cfg, "--out", out, c.dir)
	segmented := filepath.Join(t.TempDir(), "segmented")
	if err := os.CopyFS(segmented, os.DirFS(out)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	mustRun(t, "merge", "--all", "--quiet", "--out", out)
	took := time.Since(start)
	landed := map[int]int{}
	for k := range 4 {
		os.RemoveAll(out)
		if err := os.CopyFS(out, os.DirFS(segmented)); err != nil {
			t.Fatal(err)
		}
		delay := killWithin(t, took, "merge", "--all", "--quiet", "--out", out)
		m, err := index.ReadMeta(out)
		if err != nil {
			t.Fatalf("kill %d after %v: %v", k, delay, err)
		}
		if err := sameIndex(out, fresh); err != nil {
			t.Fatalf("kill %d after %v: %v", k, delay, err)
		}
		landed[max(1, len(m.Segments))]++
	}
	t.Logf("kills left %d indexes of 2 segments, %d merged", landed[2], landed[1])
	mustRun(t, "merge", "--all", "--quiet", "--out", out)
	onlyCommitted(t, out, "merge")
}
