package analytics

import (
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

// TestSeqLayoutPack packs the CPU engine's sequences, which are in
// canonical order, and checks that the keys increase and unpack to them.
func TestSeqLayoutPack(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for i, docs := range [][][]string{
		{{}, {"a", "b"}},
		randomDocs(r, 30, 400, 50, 0.9),
		randomDocs(r, 200, 50, 20, 0.5),
	} {
		for _, l := range []int{1, 3, 6} {
			t.Run(fmt.Sprintf("%d/l=%d", i, l), func(t *testing.T) {
				c := corpusOf(t, docs)
				res, err := Run(context.Background(), c, SeqCount, Options{SeqLen: l})
				if err != nil {
					t.Fatal(err)
				}
				s, err := NewSeqLayout(c.Grammar, len(c.Dict), c.RuleLengths(), l)
				if err != nil {
					t.Fatal(err)
				}
				keys := make([]uint64, len(res.Seqs)/l)
				for id := range keys {
					keys[id] = s.Pack(res.Seqs[id*l:][:l])
					if id > 0 && keys[id] <= keys[id-1] {
						t.Fatalf("sequence %d packs to %x, not above %x", id, keys[id], keys[id-1])
					}
				}
				if got := s.Unpack(keys); !slices.Equal(got, res.Seqs) {
					t.Fatalf("unpacked %v, want %v", got, res.Seqs)
				}
			})
		}
	}
}

// TestUnpackShares unpacks enough keys that the cores share them, each
// key's words checked against the key written plainly.
func TestUnpackShares(t *testing.T) {
	for _, tc := range []struct{ seqLen, bits, keys int }{
		{1, 17, 2*unpackShare + 1},
		{3, 17, 5*unpackShare + 3},
		{4, 16, unpackShare - 1},
	} {
		s := &SeqLayout{SeqLen: tc.seqLen, Bits: tc.bits}
		r := rand.New(rand.NewPCG(uint64(tc.keys), 7))
		keys := make([]uint64, tc.keys)
		for i := range keys {
			keys[i] = r.Uint64() >> (64 - tc.seqLen*tc.bits)
		}
		got := s.Unpack(keys)
		if len(got) != tc.seqLen*tc.keys {
			t.Fatalf("%+v: %d words, want %d", tc, len(got), tc.seqLen*tc.keys)
		}
		for i, k := range keys {
			var packed uint64
			for _, w := range got[i*tc.seqLen : (i+1)*tc.seqLen] {
				packed = packed<<tc.bits | uint64(w)
			}
			if packed != k {
				t.Fatalf("%+v: key %d = %x unpacks to %v", tc, i, k, got[i*tc.seqLen:(i+1)*tc.seqLen])
			}
		}
	}
}
