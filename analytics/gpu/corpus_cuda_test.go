//go:build cuda

package gpu

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/analytics"
)

// openDevice opens device 0 on its first call; the whole test binary
// shares it.
var openDevice = sync.OnceValues(func() (*Device, error) { return OpenDevice(DeviceOptions{}) })

// testDevice returns the test binary's device 0.
func testDevice(tb testing.TB) *Device {
	tb.Helper()
	d, err := openDevice()
	if err != nil {
		tb.Fatalf("OpenDevice: %v", err)
	}
	return d
}

// analyticsCorpora returns random corpora with many repeats (deep rules,
// long rules, big tables) and the sample crawl.
func analyticsCorpora(t *testing.T) map[string]*analytics.Corpus {
	t.Helper()
	r := rand.New(rand.NewPCG(21, 22))
	out := map[string]*analytics.Corpus{}
	for _, tc := range []struct {
		name           string
		docs, n, vocab int
		repeat         float64
	}{
		{"empty docs", 4, 0, 1, 0},
		{"small vocab", 20, 300, 4, 0.5},
		{"repetitive", 40, 2000, 300, 0.9},
		{"few long docs", 3, 60000, 2000, 0.95},
		{"many short docs", 3000, 20, 500, 0.8},
	} {
		b := analytics.NewBuilder()
		var all []string
		for d := range tc.docs {
			l := r.IntN(tc.n + 1)
			var words []string
			for len(words) < l {
				if len(all) > 4 && r.Float64() < tc.repeat {
					s := r.IntN(len(all))
					words = append(words, all[s:min(len(all), s+1+r.IntN(60))]...)
					continue
				}
				words = append(words, fmt.Sprintf("w%d", r.IntN(tc.vocab)))
			}
			words = words[:l]
			all = append(all, words...)
			if err := b.AddDoc(fmt.Sprintf("doc%d", d), words); err != nil {
				t.Fatal(err)
			}
		}
		out[tc.name] = b.Corpus(analytics.Meta{})
	}
	// A long passage of short repeated phrases, in three documents: its
	// rules' bodies refer to many small rules, which a warp or, past
	// analytics.WarpWork, a CTA merges.
	var phrase []string
	for range 8000 {
		i := r.IntN(40)
		phrase = append(phrase, fmt.Sprint("a", i), fmt.Sprint("b", i%7), fmt.Sprint("c", i%5))
		if r.IntN(3) == 0 {
			phrase = append(phrase, fmt.Sprint("x", r.IntN(1000)))
		}
	}
	docs := [][]string{phrase, {"start"}, append([]string{"q"}, phrase...), phrase[:len(phrase)/2]}
	// Beside them, documents of repeated random phrases, whose smaller
	// rules share levels with the long ones (a level of all three sizes).
	var seen []string
	for range 200 {
		var words []string
		for len(words) < 300 {
			if len(seen) > 4 && r.Float64() < 0.8 {
				s := r.IntN(len(seen))
				words = append(words, seen[s:min(len(seen), s+1+r.IntN(80))]...)
				continue
			}
			words = append(words, fmt.Sprint("y", r.IntN(300)))
		}
		seen = append(seen, words...)
		docs = append(docs, words)
	}
	b := analytics.NewBuilder()
	for d, words := range docs {
		if err := b.AddDoc(fmt.Sprintf("doc%d", d), words); err != nil {
			t.Fatal(err)
		}
	}
	out["long rule of small rules"] = b.Corpus(analytics.Meta{})
	c, _, err := analytics.Compress(context.Background(), filepath.Join("..", "..", "examples", "crawl"), analytics.CompressOptions{NoGzip: true})
	if err != nil {
		t.Fatal(err)
	}
	out["sample crawl"] = c
	// Uncompressed corpora (no rules: the root holds every word) take the
	// same kernels; the GPU's plain baseline runs on them.
	out["sample crawl, plain"] = c.Plain()
	out["repetitive, plain"] = out["repetitive"].Plain()
	return out
}

// sameResult reports whether two results of one task agree: counts,
// postings, vectors and sequences.
func sameResult(a, b *analytics.Result) bool {
	return slices.Equal(a.Counts, b.Counts) && equalMatrix(a.Postings, b.Postings) &&
		equalMatrix(a.Vectors, b.Vectors) && slices.Equal(a.Seqs, b.Seqs)
}

func equalMatrix(a, b *analytics.Matrix) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.Equal(a.Start, b.Start) && slices.Equal(a.Col, b.Col) && slices.Equal(a.Val, b.Val)
}

// TestAnalyticsMatchesCPU runs every task the GPU engine supports on the
// device and on the CPU engine (itself tested against plain computations
// in package analytics) and compares the results.
func TestAnalyticsMatchesCPU(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	corpora := analyticsCorpora(t)
	// One launch runs a level's thread, warp and CTA rules together: some
	// level must have all three, in the word tables' layout.
	mixed := 0
	for _, c := range corpora {
		l := analytics.NewLayout(c.Grammar, len(c.Dict))
		for lv := range l.Levels {
			at := l.LevelStart[analytics.Sizes*lv:]
			if at[1] > at[0] && at[2] > at[1] && at[3] > at[2] {
				mixed++
			}
		}
	}
	if mixed == 0 {
		t.Fatal("no test corpus has a level with rules for a thread, a warp and a CTA")
	}
	for name, c := range corpora {
		t.Run(name, func(t *testing.T) {
			a, err := d.UploadCorpus(c)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Free()
			type job struct {
				task analytics.Task
				l    int
				trav analytics.Traversal
			}
			var jobs []job
			for _, task := range []analytics.Task{analytics.WordCount, analytics.Sort} {
				jobs = append(jobs, job{task, 0, analytics.Auto})
			}
			for _, trav := range []analytics.Traversal{analytics.Auto, analytics.BottomUp, analytics.TopDown} {
				for _, task := range []analytics.Task{analytics.InvertedIndex, analytics.TermVector, analytics.RankedInvertedIndex} {
					jobs = append(jobs, job{task, 0, trav})
				}
				// seqcount for several lengths, one twice after another
				// (its pools are prepared again), the default length last.
				for _, l := range []int{1, 2, 4, 2, 3} {
					jobs = append(jobs, job{analytics.SeqCount, l, trav})
				}
			}
			// Auto takes top-down for a few documents, bottom-up for many.
			autoTrav := analytics.BottomUp
			if c.Grammar.NumFiles() <= topDownFiles {
				autoTrav = analytics.TopDown
			}
			for _, j := range jobs {
				opts := analytics.Options{SeqLen: j.l, Traversal: j.trav}
				for run := range 2 { // a second run must find its buffers cleared
					got, err := a.Run(ctx, j.task, opts)
					if err != nil {
						t.Fatalf("%s (l=%d, %s): %v", j.task, j.l, j.trav, err)
					}
					if want := cmp.Or(j.trav, autoTrav); j.task != analytics.WordCount && j.task != analytics.Sort && got.Traversal != want {
						t.Errorf("%s (%s) ran %s, want %s", j.task, j.trav, got.Traversal, want)
					}
					want, err := analytics.Run(ctx, c, j.task, opts)
					if err != nil {
						t.Fatal(err)
					}
					if !sameResult(got, want) {
						t.Errorf("%s (l=%d, %s, run %d): GPU result differs from the CPU's", j.task, j.l, got.Traversal, run)
					}
					t.Logf("%s (l=%d, %s): %d entries, kernels %v, total %v", j.task, j.l, got.Traversal, got.Entries(), got.Kernels, got.Init+got.Traverse)
				}
				if (j.task == analytics.WordCount || j.task == analytics.Sort) && a.bu != nil {
					t.Errorf("%s uploaded the inlined grammar, which only bottom-up tables use", j.task)
				}
			}
			if (a.bu != nil) != (c.Grammar.NumRules() > 0) {
				t.Errorf("%d rules, inlined grammar for bottom-up tables after bottom-up runs: %v", c.Grammar.NumRules(), a.bu != nil)
			}
			for _, tc := range []struct {
				task analytics.Task
				opts analytics.Options
			}{
				{analytics.SeqCount, analytics.Options{SeqLen: MaxGPUSeqLen + 1}},
				{analytics.WordCount, analytics.Options{Traversal: analytics.BottomUp}},
			} {
				if _, err := a.Run(ctx, tc.task, tc.opts); !errors.Is(err, ErrAnalyticsTask) {
					t.Errorf("Run(%s, %+v) error = %v, want ErrAnalyticsTask", tc.task, tc.opts, err)
				}
			}
			// MaxGPUSeqLen words too wide for a 64-bit key.
			if bits.Len(uint(len(c.Dict)))*MaxGPUSeqLen > 64 {
				if _, err := a.Run(ctx, analytics.SeqCount, analytics.Options{SeqLen: MaxGPUSeqLen}); !errors.Is(err, ErrAnalyticsTask) {
					t.Errorf("seqcount of %d words over %d words: error = %v, want ErrAnalyticsTask", MaxGPUSeqLen, len(c.Dict), err)
				}
			}
		})
	}
}

// TestAnalyticsTextMatchesCPU runs every task on corpora uploaded as text
// (UploadText: each run reads the words from the text on the device) and
// compares them with the CPU engine on the compressed form; texts that are
// not the corpus's must fail, not answer.
func TestAnalyticsTextMatchesCPU(t *testing.T) {
	d := testDevice(t)
	ctx := context.Background()
	corpora := analyticsCorpora(t)
	for name, c := range corpora {
		t.Run(name, func(t *testing.T) {
			a, err := d.UploadText(c)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Free()
			for _, task := range analytics.Tasks() {
				for run := range 2 {
					got, err := a.Run(ctx, task, analytics.Options{})
					if err != nil {
						t.Fatalf("%s: %v", task, err)
					}
					want, err := analytics.Run(ctx, c, task, analytics.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if !sameResult(got, want) {
						t.Errorf("%s (run %d): the GPU's result from text differs from the CPU's", task, run)
					}
				}
			}
		})
	}
	c := corpora["repetitive"]
	text, err := c.Text()
	if err != nil {
		t.Fatal(err)
	}
	firstSpace := slices.Index(text, ' ')
	for _, tc := range []struct {
		name string
		text []byte
	}{
		{"unknown word", append([]byte("zzz-not-a-word "), text...)},
		{"a word prefix", append([]byte(c.Dict[0][:len(c.Dict[0])-1]+" "), text...)},
		{"a newline fewer", text[:len(text)-1]},
		{"a newline more", append(slices.Clone(text), '\n')},
		{"two words joined", slices.Delete(slices.Clone(text), firstSpace, firstSpace+1)},
		{"a word more at the end", append(slices.Clone(text), []byte(c.Dict[0])...)},
	} {
		a, err := d.uploadText(c, tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Run(ctx, analytics.WordCount, analytics.Options{}); !errors.Is(err, errTextMismatch) {
			t.Errorf("%s: Run error = %v, want errTextMismatch", tc.name, err)
		}
		a.Free()
	}
}

// TestAnalyticsPrepare checks that Prepare uploads the inlined grammar
// exactly when a task's runs will take bottom-up tables on a corpus with
// rules, once, and rejects what Run rejects.
func TestAnalyticsPrepare(t *testing.T) {
	d := testDevice(t)
	for name, c := range analyticsCorpora(t) {
		t.Run(name, func(t *testing.T) {
			a, err := d.UploadCorpus(c)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Free()
			rules := c.Grammar.NumRules() > 0
			for _, tc := range []struct {
				task   analytics.Task
				trav   analytics.Traversal
				inline bool
			}{
				{analytics.WordCount, analytics.Auto, false},
				{analytics.Sort, analytics.TopDown, false},
				{analytics.InvertedIndex, analytics.TopDown, false},
				{analytics.SeqCount, analytics.BottomUp, rules},
				{analytics.TermVector, analytics.BottomUp, rules},
			} {
				if err := a.Prepare(tc.task, analytics.Options{Traversal: tc.trav}); err != nil {
					t.Fatalf("Prepare(%s, %s): %v", tc.task, tc.trav, err)
				}
				if (a.bu != nil) != tc.inline {
					t.Errorf("after Prepare(%s, %s): inlined upload %v, want %v", tc.task, tc.trav, a.bu != nil, tc.inline)
				}
			}
			bu := a.bu
			if err := a.Prepare(analytics.RankedInvertedIndex, analytics.Options{Traversal: analytics.BottomUp}); err != nil || a.bu != bu {
				t.Errorf("a second bottom-up Prepare: %v, upload kept %v", err, a.bu == bu)
			}
			if err := a.Prepare("nosuchtask", analytics.Options{}); err == nil {
				t.Error("Prepare of an unknown task succeeded")
			}
			if err := a.Prepare(analytics.SeqCount, analytics.Options{SeqLen: -1}); err == nil {
				t.Error("Prepare with a negative sequence length succeeded")
			}
		})
	}
}

// BenchmarkAnalytics runs the GPU tasks on the compressed corpus named by
// $GPUSEARCH_ANALYTICS_CORPUS, reporting kernel time beside the wall time.
func BenchmarkAnalytics(b *testing.B) {
	dir := os.Getenv("GPUSEARCH_ANALYTICS_CORPUS")
	if dir == "" {
		b.Skip("set GPUSEARCH_ANALYTICS_CORPUS to a compressed corpus directory")
	}
	c, err := analytics.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	a, err := testDevice(b).UploadCorpus(c)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Free()
	for _, task := range analytics.Tasks() {
		b.Run(string(task), func(b *testing.B) {
			var kernels float64
			for b.Loop() {
				res, err := a.Run(context.Background(), task, analytics.Options{})
				if err != nil {
					b.Fatal(err)
				}
				kernels += float64(res.Kernels.Nanoseconds())
			}
			b.ReportMetric(kernels/float64(b.N)/1e6, "kernel-ms/op")
		})
	}
}
