package index_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// sweepEngines are the engines whose answers a damaged index must not
// change: the reference, and the pruning engines that trust the stored
// block-max bounds.
var sweepEngines = []string{"exhaustive", "maxscore", "wand", "bmw"}

// sweepQueries are the fixed queries of the sweeps, over goodIndex's terms.
var sweepQueries = []query.Query{
	{Terms: []string{"t006-len600"}, Mode: query.Or, K: 10},
	{Terms: []string{"t005-len300", "t006-len600"}, Mode: query.Or, K: 10},
	{Terms: []string{"t002-len127", "t004-len129", "t005-len300", "t006-len600"}, Mode: query.Or, K: 20},
	{Terms: []string{"t003-len128", "t006-len600"}, Mode: query.And, K: 10},
	{Terms: []string{"t001-len3", "t005-len300"}, Mode: query.AndOr, K: 10},
}

// answers runs the sweep queries on ix with engine.
func answers(t testing.TB, ix *index.Index, engine string) [][]query.Hit {
	t.Helper()
	eng, err := query.New(ix, engine)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]query.Hit
	for _, q := range sweepQueries {
		res, err := eng.Search(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %v: %v", engine, q.Terms, err)
		}
		out = append(out, res.Hits)
	}
	return out
}

// sameAnswers reports how the engines' answers on ix differ from want.
func sameAnswers(t testing.TB, ix *index.Index, want [][]query.Hit) error {
	for _, e := range sweepEngines {
		got := answers(t, ix, e)
		for i := range want {
			if !slices.Equal(got[i], want[i]) {
				return fmt.Errorf("%s answers %v with %v, want %v", e, sweepQueries[i].Terms, got[i], want[i])
			}
		}
	}
	return nil
}

// TestCommitFileBitFlips flips every bit of meta.json, one at a time: each
// flipped index must be refused at Open with an error naming meta.json, or
// answer the fixed queries exactly as the original index answers them with
// the exhaustive engine, on every engine.
func TestCommitFileBitFlips(t *testing.T) {
	good := goodIndex(t)
	ix := openIndex(t, good)
	want := answers(t, ix, "exhaustive")
	dir := copyIndex(t, good)
	metaPath := filepath.Join(dir, "meta.json")
	orig, err := os.ReadFile(metaPath)
	if err != nil {
		t.Fatal(err)
	}
	refused, same := 0, 0
	for bit := range 8 * len(orig) {
		b := slices.Clone(orig)
		b[bit/8] ^= 1 << (bit % 8)
		if err := os.WriteFile(metaPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ix, err := index.Open(dir)
		if err != nil {
			refused++
			if !strings.Contains(err.Error(), "meta.json") || !(errors.Is(err, index.ErrCorrupt) || errors.Is(err, index.ErrVersion)) {
				t.Errorf("bit %d (byte %q): Open error %q does not name meta.json or wrap ErrCorrupt/ErrVersion", bit, orig[bit/8], err)
			}
			continue
		}
		err = sameAnswers(t, ix, want)
		ix.Close()
		if err != nil {
			t.Errorf("bit %d (byte %d, %q) accepted and changed an answer: %v", bit, bit/8, orig[bit/8], err)
			continue
		}
		same++
	}
	t.Logf("%d flipped commit files refused, %d accepted with the same answers", refused, same)
}

// TestCommitFileEdits edits meta.json's values with its checksum kept
// right, as a tool or a person might: every value scoring depends on is
// cross-checked, and the error names meta.json and the field.
func TestCommitFileEdits(t *testing.T) {
	good := goodIndex(t)
	set := func(key string, v any) func(m map[string]any) { return func(m map[string]any) { m[key] = v } }
	tests := []struct {
		name  string
		edit  func(m map[string]any)
		field string
	}{
		{"k1 changed", set("k1", 3.0), "k1"},
		{"b changed", set("b", 0.75), "b"},
		{"b out of range", set("b", 1.5), "b"},
		{"k1 negative", set("k1", -0.9), "k1"},
		{"average length changed", set("avg_doc_length", 122.0), "avg_doc_length"},
		{"average length renamed", func(m map[string]any) {
			m["avg_doc_lenght"] = m["avg_doc_length"]
			delete(m, "avg_doc_length")
		}, "avg_doc_length"},
		{"key in upper case", func(m map[string]any) {
			m["K1"] = m["k1"]
			delete(m, "k1")
		}, "k1"},
		{"unknown key", set("boost", 2), "boost"},
		{"title weight out of range", set("title_weight", 101), "title_weight"},
		{"title weight negative", set("title_weight", -1), "title_weight"},
		{"title weight fractional", set("title_weight", 1.5), "title_weight"},
		{"missing key", func(m map[string]any) { delete(m, "b") }, `"b"`},
		{"document count changed", func(m map[string]any) { m["docs"] = 601 }, "docs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyIndex(t, good)
			editMeta(t, dir, tt.edit)
			err := openRefused(t, dir)
			if !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), "meta.json") || !strings.Contains(err.Error(), tt.field) {
				t.Errorf("Open error = %v, want ErrCorrupt naming meta.json and %s", err, tt.field)
			}
		})
	}
}

// fileState is what a reader that opened a path saw: the file's identity
// and content.
type fileState struct {
	ino  uint64
	data string
}

// treeState records every regular file under dir.
func treeState(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	files := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[p] = fileState{info.Sys().(*syscall.Stat_t).Ino, string(b)}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestWriterNeverRewritesServedFiles rewrites the index a reader has open:
// the writer writes new files only, so every file the reader's index
// named is either gone or exactly as it was (same inode, same bytes), and
// the open index answers as before.
func TestWriterNeverRewritesServedFiles(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(21, 22))
	a := randomCollection(r, 600, []int{1, 3, 127, 128, 129, 300, 600})
	b := randomCollection(r, 600, []int{1, 3, 127, 128, 129, 300, 600})
	a.write(t, dir, "varint-SU")
	ix := openIndex(t, dir)
	want := answers(t, ix, "exhaustive")
	before := treeState(t, dir)
	for range 2 { // the second write removes the first's generation
		b.write(t, dir, "varint-SU")
		for p, st := range before {
			if filepath.Base(p) == "meta.json" {
				continue // the commit point: replaced by a rename, never written in place
			}
			now, err := os.ReadFile(p)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			info, serr := os.Stat(p)
			if err != nil || serr != nil || info.Sys().(*syscall.Stat_t).Ino != st.ino || string(now) != st.data {
				t.Errorf("%s, which the open index named, was rewritten in place", p)
			}
		}
	}
	if err := sameAnswers(t, ix, want); err != nil {
		t.Errorf("the open index changed under its reader: %v", err)
	}
}

// TestOpenDuringRewrites opens the index again and again while another
// goroutine rewrites it: every Open finds a complete index, the old or the
// new, never none.
func TestOpenDuringRewrites(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(7, 8))
	colls := []collection{
		randomCollection(r, 300, []int{5, 50, 300}),
		randomCollection(r, 400, []int{7, 70, 400}),
	}
	colls[0].write(t, dir, "varint-SU")
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for i := range 12 {
			colls[(i+1)%2].write(t, dir, "varint-SU")
		}
	})
	opens := 0
	for running := true; running; opens++ {
		select {
		case <-done:
			running = false
		default:
		}
		ix, err := index.Open(dir)
		if err != nil {
			t.Fatalf("Open during a rewrite (after %d opens): %v", opens, err)
		}
		if n := ix.NumDocs(); n != 300 && n != 400 {
			t.Errorf("Open during a rewrite: %d documents, want 300 or 400", n)
		}
		ix.Close()
	}
	wg.Wait()
	t.Logf("%d opens during 12 rewrites", opens)
}

// TestSecondWriterRefused checks that one index directory has one writer
// at a time: a second is refused with an error that says so, and may
// write once the first is done.
func TestSecondWriterRefused(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(9, 10))
	c := randomCollection(r, 100, []int{5, 50})
	opts := index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}
	w, err := index.NewWriter(dir, opts, c.docLens, c.urls)
	if err != nil {
		t.Fatal(err)
	}
	if w2, err := index.NewWriter(dir, opts, c.docLens, c.urls); err == nil {
		w2.Abort()
		t.Fatal("a second writer on the same directory was let in")
	} else if !strings.Contains(err.Error(), "another") {
		t.Errorf("second writer's error = %q, want it to say another writer holds the directory", err)
	}
	w.Abort()
	c.write(t, dir, "varint-SU")
}
