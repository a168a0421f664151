package sequitur

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// build runs a Builder over files and returns its grammar.
func build(files [][]uint32) *Grammar {
	b := New()
	for _, f := range files {
		for _, w := range f {
			b.Add(w)
		}
		b.EndFile()
	}
	return b.Grammar()
}

// randomFiles makes n files over a vocabulary of v words. With repeat > 0
// each file is mostly copies of earlier stretches of the corpus, so that
// Sequitur builds deep rules.
func randomFiles(r *rand.Rand, n, maxLen, v int, repeat float64) [][]uint32 {
	var all []uint32
	files := make([][]uint32, n)
	for i := range files {
		l := r.IntN(maxLen + 1)
		f := make([]uint32, 0, l)
		for len(f) < l {
			if len(all) > 4 && r.Float64() < repeat {
				start := r.IntN(len(all))
				end := min(len(all), start+1+r.IntN(64))
				f = append(f, all[start:end]...)
				continue
			}
			f = append(f, uint32(r.IntN(v)))
		}
		f = f[:l]
		all = append(all, f...)
		files[i] = f
	}
	return files
}

// checkInvariants fails t unless g is valid, expands to files, keeps
// digram uniqueness and rule utility.
func checkInvariants(t *testing.T, g *Grammar, files [][]uint32, numWords int) {
	t.Helper()
	if err := g.Validate(numWords); err != nil {
		t.Fatalf("Validate() = %v", err)
	}
	if g.NumFiles() != len(files) {
		t.Fatalf("NumFiles() = %d, want %d", g.NumFiles(), len(files))
	}
	for f := range files {
		got := g.Expand(nil, g.File(f))
		if !slices.Equal(got, files[f]) {
			t.Fatalf("file %d expands to %v, want %v", f, got, files[f])
		}
	}
	type occ struct{ seq, pos int }
	digrams := map[[2]uint32][]occ{}
	refs := make([]int, g.NumRules())
	scan := func(seq int, syms []uint32) {
		for i, s := range syms {
			if s&RuleFlag != 0 {
				refs[s&^RuleFlag]++
			}
			if i+1 < len(syms) {
				k := [2]uint32{s, syms[i+1]}
				digrams[k] = append(digrams[k], occ{seq, i})
			}
		}
	}
	for r := range g.NumRules() {
		scan(r, g.Rule(r))
	}
	for f := range g.NumFiles() {
		scan(g.NumRules()+f, g.File(f))
	}
	for k, os := range digrams {
		if len(os) == 1 {
			continue
		}
		overlap := len(os) == 2 && os[0].seq == os[1].seq && os[1].pos-os[0].pos == 1 && k[0] == k[1]
		if !overlap {
			t.Fatalf("digram %v occurs %d times: %v", k, len(os), os)
		}
	}
	for r, n := range refs {
		if n < 2 {
			t.Fatalf("rule %d is referenced %d times, want at least 2", r, n)
		}
	}
}

func TestBuilderSmall(t *testing.T) {
	tests := []struct {
		name  string
		files [][]uint32
	}{
		{"empty", nil},
		{"one empty file", [][]uint32{{}}},
		{"empty files", [][]uint32{{}, {}, {1}, {}}},
		{"one word", [][]uint32{{7}}},
		{"abcdbc", [][]uint32{{0, 1, 2, 3, 1, 2}}},
		{"abcdbcabcd", [][]uint32{{0, 1, 2, 3, 1, 2, 0, 1, 2, 3}}},
		{"aaa", [][]uint32{{0, 0, 0}}},
		{"aaaa", [][]uint32{{0, 0, 0, 0}}},
		{"a x 9", [][]uint32{{0, 0, 0, 0, 0, 0, 0, 0, 0}}},
		{"abab...", [][]uint32{{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0}}},
		{"aabaaab", [][]uint32{{0, 0, 1, 0, 0, 0, 1}}},
		{"across files", [][]uint32{{0, 1}, {0, 1}, {1, 0, 1}}},
		{"boundary digram", [][]uint32{{0}, {1}, {0}, {1}, {0, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkInvariants(t, build(tt.files), tt.files, 16)
		})
	}
}

func TestBuilderCompresses(t *testing.T) {
	// 1000 copies of a 10-word phrase need a grammar of a few dozen symbols.
	var f []uint32
	for range 1000 {
		for w := range uint32(10) {
			f = append(f, w)
		}
	}
	g := build([][]uint32{f})
	checkInvariants(t, g, [][]uint32{f}, 10)
	if g.Size() > 60 {
		t.Errorf("Size() = %d for 1000 repeats of 10 words, want at most 60", g.Size())
	}
}

func TestBuilderRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		files := r.IntN(6) + 1
		maxLen := []int{4, 30, 300}[i%3]
		vocab := []int{1, 2, 3, 5, 50}[i%5]
		repeat := []float64{0, 0.5, 0.95}[i%3]
		t.Run(fmt.Sprintf("%d-v%d-l%d-rep%v", i, vocab, maxLen, repeat), func(t *testing.T) {
			fs := randomFiles(r, files, maxLen, vocab, repeat)
			checkInvariants(t, build(fs), fs, vocab)
		})
	}
}

func TestBuilderLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	fs := randomFiles(r, 50, 4000, 200, 0.9)
	g := build(fs)
	checkInvariants(t, g, fs, 200)
	depth := make([]int, g.NumRules())
	maxDepth := 0
	for rule := range depth {
		for _, s := range g.Rule(rule) {
			if s&RuleFlag != 0 {
				depth[rule] = max(depth[rule], depth[s&^RuleFlag]+1)
			}
		}
		maxDepth = max(maxDepth, depth[rule])
	}
	if maxDepth < 5 {
		t.Errorf("deepest rule has depth %d on a repetitive corpus, want at least 5", maxDepth)
	}
}

// TestBuilderIncremental checks that Grammar can be taken mid-stream.
func TestBuilderIncremental(t *testing.T) {
	b := New()
	want := [][]uint32{{1, 2, 1, 2}, {1, 2, 3}}
	for _, w := range want[0] {
		b.Add(w)
	}
	b.EndFile()
	checkInvariants(t, b.Grammar(), want[:1], 4)
	for _, w := range want[1] {
		b.Add(w)
	}
	checkInvariants(t, b.Grammar(), want, 4)
	if b.Words() != 7 {
		t.Errorf("Words() = %d, want 7", b.Words())
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name string
		g    Grammar
	}{
		{"no offsets", Grammar{}},
		{"short rule", Grammar{RuleStart: []uint32{0, 1}, Body: []uint32{0}, FileStart: []uint32{0}}},
		{"self reference", Grammar{RuleStart: []uint32{0, 2}, Body: []uint32{0, RuleFlag}, FileStart: []uint32{0}}},
		{"forward reference", Grammar{RuleStart: []uint32{0, 2, 4}, Body: []uint32{0, RuleFlag | 1, 0, 1}, FileStart: []uint32{0}}},
		{"word range", Grammar{RuleStart: []uint32{0}, FileStart: []uint32{0, 1}, Root: []uint32{9}}},
		{"root rule range", Grammar{RuleStart: []uint32{0}, FileStart: []uint32{0, 1}, Root: []uint32{RuleFlag}}},
		{"decreasing offsets", Grammar{RuleStart: []uint32{0}, FileStart: []uint32{0, 2, 1}, Root: []uint32{1}}},
		{"offsets past end", Grammar{RuleStart: []uint32{0}, FileStart: []uint32{0, 2}, Root: []uint32{1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.g.Validate(4); err == nil {
				t.Errorf("Validate(%+v) = nil, want an error", tt.g)
			}
		})
	}
}

func BenchmarkBuilder(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	fs := randomFiles(r, 20, 20000, 5000, 0.7)
	words := 0
	for _, f := range fs {
		words += len(f)
	}
	b.SetBytes(int64(4 * words))
	for b.Loop() {
		build(fs)
	}
}
