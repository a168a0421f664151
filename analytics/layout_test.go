package analytics

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/analytics/sequitur"
)

func distinctWords(words []uint32) uint64 {
	seen := map[uint32]bool{}
	for _, w := range words {
		seen[w] = true
	}
	return uint64(len(seen))
}

func TestLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for i, docs := range [][][]string{
		nil,
		{{}, {"a"}},
		randomDocs(r, 30, 400, 50, 0.9),
		randomDocs(r, 5, 3000, 8, 0.95),
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			c := corpusOf(t, docs)
			g := c.Grammar
			l := NewLayout(g, len(c.Dict))
			if len(l.LevelStart) != Sizes*l.Levels+1 || int(l.LevelStart[Sizes*l.Levels]) != g.NumRules() || len(l.Rules) != g.NumRules() {
				t.Fatalf("layout of %d rules: %d levels, LevelStart %v", g.NumRules(), l.Levels, l.LevelStart)
			}
			level := make([]int, g.NumRules())
			seen := make([]bool, g.NumRules())
			for b := range Sizes * l.Levels {
				for _, rule := range l.Rules[l.LevelStart[b]:l.LevelStart[b+1]] {
					if seen[rule] {
						t.Fatalf("rule %d listed twice", rule)
					}
					seen[rule] = true
					level[rule] = b / Sizes
					work := uint64(len(g.Rule(int(rule))))
					for _, s := range g.Rule(int(rule)) {
						if s&sequitur.RuleFlag != 0 {
							c := s &^ sequitur.RuleFlag
							work += l.TableOff[c+1] - l.TableOff[c]
						}
					}
					size := 0
					if work > WarpWork {
						size = 2
					} else if work > ThreadWork {
						size = 1
					}
					if b%Sizes != size {
						t.Errorf("rule %d with work %d listed in size %d", rule, work, b%Sizes)
					}
				}
			}
			for rule := range g.NumRules() {
				for _, s := range g.Rule(rule) {
					if s&sequitur.RuleFlag != 0 && level[s&^sequitur.RuleFlag] >= level[rule] {
						t.Errorf("rule %d (level %d) refers to rule %d (level %d)", rule, level[rule], s&^sequitur.RuleFlag, level[s&^sequitur.RuleFlag])
					}
				}
				slots := l.TableOff[rule+1] - l.TableOff[rule]
				want := distinctWords(g.Expand(nil, g.Rule(rule)))
				if slots&(slots-1) != 0 || slots < 2*want {
					t.Errorf("rule %d: %d slots for %d distinct words", rule, slots, want)
				}
			}
			for f := range g.NumFiles() {
				slots := l.FileOff[f+1] - l.FileOff[f]
				want := distinctWords(c.Doc(nil, f))
				if slots&(slots-1) != 0 || slots < 2*want || (want == 0) != (slots == 0) {
					t.Errorf("file %d: %d slots for %d distinct words", f, slots, want)
				}
			}
		})
	}
}

// TestTableLayoutExact checks that an inlined corpus gets tables of
// exactly the smallest size for their distinct words, and others the
// bounds of NewLayout.
func TestTableLayoutExact(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for i, docs := range [][][]string{
		{{}, {"a"}},
		randomDocs(r, 30, 400, 50, 0.9),
		randomDocs(r, 200, 40, 300, 0.8),
	} {
		c := corpusOf(t, docs)
		in, err := c.Inlined()
		if err != nil {
			t.Fatal(err)
		}
		l, g := in.TableLayout(), in.Grammar
		for rule := range g.NumRules() {
			if got, want := l.TableOff[rule+1]-l.TableOff[rule], tableSlots(distinctWords(g.Expand(nil, g.Rule(rule)))); got != want {
				t.Errorf("%d: rule %d has %d slots, want %d", i, rule, got, want)
			}
		}
		for f := range g.NumFiles() {
			if got, want := l.FileOff[f+1]-l.FileOff[f], tableSlots(distinctWords(in.Doc(nil, f))); got != want {
				t.Errorf("%d: document %d has %d slots, want %d", i, f, got, want)
			}
		}
		for name, x := range map[string]*Corpus{"compressed": c, "plain": c.Plain()} {
			if got, want := x.TableLayout().FileOff, NewLayout(x.Grammar, len(x.Dict)).FileOff; !slices.Equal(got, want) {
				t.Errorf("%d: TableLayout of the %s corpus differs from NewLayout", i, name)
			}
		}
	}
}
