package analytics

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// distinctWindows counts the distinct l-word windows of words.
func distinctWindows(words []uint32, l int) uint64 {
	seen := map[string]bool{}
	for i := 0; i+l <= len(words); i++ {
		seen[fmt.Sprint(words[i:i+l])] = true
	}
	return uint64(len(seen))
}

func TestSeqLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	corpora := [][][]string{
		nil,
		{{}, {"a"}, {"a", "b"}},
		randomDocs(r, 30, 400, 50, 0.9),
		randomDocs(r, 5, 3000, 8, 0.95),
	}
	for i, docs := range corpora {
		for _, l := range []int{1, 2, 3, 5} {
			t.Run(fmt.Sprintf("%d/l=%d", i, l), func(t *testing.T) {
				c := corpusOf(t, docs)
				g := c.Grammar
				s, err := NewSeqLayout(g, len(c.Dict), c.RuleLengths(), l)
				if err != nil {
					t.Fatal(err)
				}
				w := l - 1
				for rule := range g.NumRules() {
					words := g.Expand(nil, g.Rule(rule))
					slots := s.TableOff[rule+1] - s.TableOff[rule]
					if want := distinctWindows(words, l); slots&(slots-1) != 0 || slots < 2*want {
						t.Errorf("rule %d: %d slots for %d distinct windows", rule, slots, want)
					}
					n := min(w, len(words))
					head := s.Head[rule*w:][:s.HeadLen[rule]]
					tail := s.Tail[rule*w:][:s.TailLen[rule]]
					if !slices.Equal(head, words[:n]) || !slices.Equal(tail, words[len(words)-n:]) {
						t.Errorf("rule %d (%v): head %v tail %v", rule, words, head, tail)
					}
				}
				for f := range g.NumFiles() {
					slots := s.FileOff[f+1] - s.FileOff[f]
					want := distinctWindows(c.Doc(nil, f), l)
					if slots&(slots-1) != 0 || slots < 2*want || (want == 0) != (slots == 0) {
						t.Errorf("file %d: %d slots for %d distinct windows", f, slots, want)
					}
				}
			})
		}
	}
	c := corpusOf(t, corpora[2])
	if _, err := NewSeqLayout(c.Grammar, 1<<16, c.RuleLengths(), 4); !errors.Is(err, ErrSeqKey) {
		t.Errorf("4 words of 17 bits: %v, want ErrSeqKey", err)
	}
}

// TestSeqLayoutResult packs the CPU engine's seqcount result into keys,
// shuffles every row and checks that Result restores it.
func TestSeqLayoutResult(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for i, docs := range [][][]string{
		nil,
		{{}, {"a", "b"}},
		randomDocs(r, 30, 400, 50, 0.9),
		randomDocs(r, 200, 50, 20, 0.5),
	} {
		for _, l := range []int{1, 3} {
			for _, workers := range []int{1, 3} {
				t.Run(fmt.Sprintf("%d/l=%d/workers=%d", i, l, workers), func(t *testing.T) {
					c := corpusOf(t, docs)
					want, err := Run(context.Background(), c, SeqCount, Options{SeqLen: l})
					if err != nil {
						t.Fatal(err)
					}
					s, err := NewSeqLayout(c.Grammar, len(c.Dict), c.RuleLengths(), l)
					if err != nil {
						t.Fatal(err)
					}
					m := want.Vectors
					keys := make([]uint64, len(m.Col))
					vals := slices.Clone(m.Val)
					for j, id := range m.Col {
						keys[j] = s.Pack(want.Seqs[int(id)*l:][:l])
					}
					for d := range m.Rows() {
						lo, hi := m.Start[d], m.Start[d+1]
						r.Shuffle(hi-lo, func(a, b int) {
							keys[lo+a], keys[lo+b] = keys[lo+b], keys[lo+a]
							vals[lo+a], vals[lo+b] = vals[lo+b], vals[lo+a]
						})
					}
					got, seqs := s.Result(slices.Clone(m.Start), keys, vals, workers)
					if !slices.Equal(seqs, want.Seqs) {
						t.Fatalf("sequences %v, want %v", seqs, want.Seqs)
					}
					if !slices.Equal(got.Start, m.Start) || !slices.Equal(got.Col, m.Col) || !slices.Equal(got.Val, m.Val) {
						t.Fatalf("vectors %+v, want %+v", got, m)
					}
				})
			}
		}
	}
}

// TestRadixSort compares radixSort with a stable sort.
func TestRadixSort(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	for _, n := range []int{0, 1, 100, 20000} {
		for _, keyBits := range []int{1, 13, 51, 64} {
			for _, workers := range []int{1, 3, 8} {
				mask := ^uint64(0)
				if keyBits < 64 {
					mask = 1<<keyBits - 1
				}
				keys := make([]uint64, n)
				for i := range keys {
					keys[i] = r.Uint64() >> r.IntN(64) & mask // many small keys, some repeats
				}
				type entry struct{ key, pay uint64 }
				want := make([]entry, n)
				pay := make([]uint64, n)
				for i, k := range keys {
					pay[i] = uint64(i)
					want[i] = entry{k, uint64(i)}
				}
				slices.SortStableFunc(want, func(a, b entry) int { return cmp.Compare(a.key, b.key) })
				gotKeys, gotPay := radixSort(slices.Clone(keys), pay, keyBits, workers)
				for i, e := range want {
					if gotKeys[i] != e.key || gotPay[i] != e.pay {
						t.Fatalf("n=%d bits=%d workers=%d: entry %d is (%x, %d), want (%x, %d)", n, keyBits, workers, i, gotKeys[i], gotPay[i], e.key, e.pay)
					}
				}
			}
		}
	}
}
