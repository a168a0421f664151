package gen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// openCollection opens the sharded collection in dir, closing it with
// the test.
func openCollection(t *testing.T, dir string) ([]*index.Index, index.Manifest) {
	t.Helper()
	shards, man, err := index.OpenSharded(dir)
	if err != nil {
		t.Fatalf("OpenSharded(%s): %v", dir, err)
	}
	t.Cleanup(func() {
		for _, s := range shards {
			s.Close()
		}
	})
	return shards, man
}

func openIndex(t *testing.T, dir string) *index.Index {
	t.Helper()
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// TestShardsAreTheSplitIndex: gen index --shards writes, byte for byte,
// the files index.Split writes from the unsharded index of the same seed
// (under the same collection identity): every shard's files, meta.json
// and collection.bin included, and shards.json. With the numbers of
// shards and the look-ahead budget varied, several workers and a budget
// of one posting included (the slowest shard writer must always get its
// next batch).
func TestShardsAreTheSplitIndex(t *testing.T) {
	base := Options{Docs: 2500, Seed: 5, Params: smallParams(), Workers: 1}
	plainDir, plainRep := generate(t, base)
	plain := openIndex(t, plainDir)
	tests := []struct {
		shards, workers int
		ahead           int64
	}{
		{1, 1, 0},
		{2, 2, 0},
		{3, 4, 1},
		{5, 3, 1 << 10},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("shards=%d/workers=%d/ahead=%d", tt.shards, tt.workers, tt.ahead), func(t *testing.T) {
			opts := base
			opts.Shards, opts.Workers, opts.AheadPostings = tt.shards, tt.workers, tt.ahead
			dir, rep := generate(t, opts)
			if rep.Terms != plainRep.Terms || rep.Postings != plainRep.Postings || rep.Tokens != plainRep.Tokens {
				t.Errorf("report: %d terms, %d postings, %d tokens; the index has %d, %d, %d",
					rep.Terms, rep.Postings, rep.Tokens, plainRep.Terms, plainRep.Postings, plainRep.Tokens)
			}
			if len(rep.Shards) != tt.shards || rep.Collection == "" {
				t.Fatalf("report: collection %q of %d shards, want %d", rep.Collection, len(rep.Shards), tt.shards)
			}
			var postings uint64
			for _, s := range rep.Shards {
				postings += s.Postings
			}
			if postings != rep.Postings {
				t.Errorf("shards' postings add up to %d, the collection has %d", postings, rep.Postings)
			}
			splitDir := filepath.Join(t.TempDir(), "split")
			if _, err := index.Split(context.Background(), plain, splitDir, tt.shards, index.SplitOptions{Collection: rep.Collection}); err != nil {
				t.Fatal(err)
			}
			got, want := readDir(t, dir), readDir(t, splitDir)
			for name := range want {
				if strings.HasSuffix(name, ".lock") {
					delete(want, name)
					delete(got, name)
				}
			}
			if len(want) < 2*tt.shards+1 || len(got) != len(want) {
				t.Errorf("%d files, Split wrote %d", len(got), len(want))
			}
			for name, b := range want {
				if !bytes.Equal(got[name], b) {
					t.Errorf("%s differs from Split's", name)
				}
			}
		})
	}
}

// TestShardsAnswerAsTheIndex: every CPU engine, in every mode, answers
// over a generated collection of 3 shards (query.OpenSharded) exactly
// what it answers over the unsharded index of the same seed: gen's own
// queries and random ones, terms that some shards lack included.
func TestShardsAnswerAsTheIndex(t *testing.T) {
	opts := Options{Docs: 3000, Seed: 11, Params: smallParams()}
	plainDir, _ := generate(t, opts)
	opts.Shards = 3
	collDir, _ := generate(t, opts)
	plain := openIndex(t, plainDir)
	shards, _ := openCollection(t, collDir)

	genQs, _, err := Queries(plain, QueryOptions{N: 60, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var queries [][]string
	for _, q := range genQs {
		queries = append(queries, q.Terms)
	}
	rng := rand.New(rand.NewPCG(36, 2))
	absent := 0 // random queries with a term some shard lacks
	for range 60 {
		var terms []string
		for range 1 + rng.IntN(4) {
			// Uniform over the lexicon: mostly rare terms, in one shard.
			term := plain.Term(rng.IntN(plain.NumTerms())).Term
			if !slices.Contains(terms, term) {
				terms = append(terms, term)
			}
		}
		for _, term := range terms {
			_, in0 := shards[0].DocFreq(term)
			_, in2 := shards[2].DocFreq(term)
			if in0 != in2 {
				absent++
			}
		}
		queries = append(queries, terms)
	}
	if absent == 0 {
		t.Error("no random query had a term that one shard lacks and another holds")
	}

	ctx := context.Background()
	for _, name := range query.Engines() {
		whole, err := query.New(plain, name)
		if err != nil {
			t.Fatal(err)
		}
		sharded, err := query.OpenSharded(shards, name, query.DefaultOptions)
		if err != nil {
			t.Fatal(err)
		}
		for i, terms := range queries {
			for _, mode := range []query.Mode{query.And, query.Or, query.AndOr} {
				q := query.Query{Terms: terms, Mode: mode, K: []int{1, 10, 100}[i%3]}
				want, err := whole.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				got, err := sharded.Search(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Hits, want.Hits) {
					t.Errorf("%s %v: shards answer\n %v\nthe index\n %v", name, q, got.Hits, want.Hits)
				}
			}
		}
		if c, ok := sharded.(io.Closer); ok {
			c.Close()
		}
	}
}

// TestShardsReplaceACollection: generating a collection of fewer shards
// into a collection's directory replaces it, its extra shards removed;
// a directory holding an index is refused.
func TestShardsReplaceACollection(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Docs: 500, Seed: 2, Params: smallParams(), Shards: 3}
	if _, err := Generate(context.Background(), dir, opts); err != nil {
		t.Fatal(err)
	}
	opts.Shards, opts.Seed = 2, 3
	rep, err := Generate(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	_, man := openCollection(t, dir)
	if man.Collection != rep.Collection || len(man.Shards) != 2 {
		t.Errorf("manifest: collection %s of %d shards, want %s of 2", man.Collection, len(man.Shards), rep.Collection)
	}
	if _, err := os.Stat(filepath.Join(dir, index.ShardDir(2))); !os.IsNotExist(err) {
		t.Errorf("%s of the earlier collection left: %v", index.ShardDir(2), err)
	}

	plainDir, _ := generate(t, Options{Docs: 500, Seed: 2, Params: smallParams()})
	if _, err := Generate(context.Background(), plainDir, opts); err == nil || !strings.Contains(err.Error(), "holds an index") {
		t.Errorf("shards into an index's directory: %v, want a refusal", err)
	}
}

// TestShardsErrors: bad shard counts and random order are refused, by
// Generate and by gen index's flags, before anything is written.
func TestShardsErrors(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		args   []string
		errHas string
	}{
		{"negative", Options{Docs: 100, Shards: -1}, []string{"--docs", "100", "--shards", "-1"}, "want at least 1"},
		{"zero given", Options{}, []string{"--docs", "100", "--shards", "0"}, "want at least 1"},
		{"more shards than documents", Options{Docs: 4, Shards: 5}, []string{"--docs", "4", "--shards", "5"}, "one shard per document"},
		{"random order", Options{Docs: 100, Shards: 2, Order: "random"}, []string{"--docs", "100", "--shards", "2", "--order", "random"}, "url order"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.Docs > 0 {
				dir := filepath.Join(t.TempDir(), "out")
				_, err := Generate(context.Background(), dir, tt.opts)
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Errorf("Generate: %v, want an error saying %q", err, tt.errHas)
				}
				if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
					t.Errorf("Generate created %s before refusing", dir)
				}
			}
			var f IndexFlags
			fs := pflag.NewFlagSet("gen index", pflag.ContinueOnError)
			f.AddFlags(fs)
			if err := fs.Parse(append(tt.args, "--out", t.TempDir())); err != nil {
				t.Fatal(err)
			}
			if err := f.Complete(); err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("Complete(%q): %v, want an error saying %q", tt.args, err, tt.errHas)
			}
		})
	}
}

// TestShardsCancel: a generation of shards cancelled at any point (at
// once, in the first pass, as the shard writers start) returns the
// context's error, aborts every shard writer and leaves no manifest, so
// no collection.
func TestShardsCancel(t *testing.T) {
	tests := []struct {
		name string
		when func(dir string, cancel func())
	}{
		{"at once", nil},
		{"in the first pass", func(_ string, cancel func()) { time.AfterFunc(50*time.Millisecond, cancel) }},
		{"as the writers start", func(dir string, cancel func()) {
			go func() {
				for {
					if _, err := os.Stat(filepath.Join(dir, index.ShardDir(2))); err == nil {
						cancel()
						return
					}
					time.Sleep(time.Millisecond)
				}
			}()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.when == nil {
				cancel()
			} else {
				tt.when(dir, cancel)
			}
			_, err := Generate(ctx, dir, Options{Docs: 20000, Seed: 1, Params: smallParams(), Shards: 3, AheadPostings: 1 << 12})
			if err == nil {
				return // finished first: nothing to check
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Generate: %v, want the context's error", err)
			}
			if index.IsSharded(dir) {
				t.Errorf("a cancelled generation left %s", index.ManifestFile)
			}
			for j := range 3 {
				if _, err := index.ReadMeta(filepath.Join(dir, index.ShardDir(j))); err == nil {
					t.Errorf("a cancelled generation committed %s", index.ShardDir(j))
				}
			}
		})
	}
}
