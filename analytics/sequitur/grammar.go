package sequitur

import (
	"errors"
	"fmt"
)

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("sequitur: invalid grammar")

// Grammar is a straight-line grammar: rules over words, and a root split
// into files. A symbol s is the word s, or rule s&^RuleFlag when s has
// RuleFlag set. Rule r's body is Body[RuleStart[r]:RuleStart[r+1]] and
// refers only to rules below r, so rules in increasing order are in
// bottom-up (children first) order. File f is Root[FileStart[f]:FileStart[f+1]].
type Grammar struct {
	RuleStart []uint32 // len NumRules()+1, RuleStart[0] == 0
	Body      []uint32
	FileStart []uint32 // len NumFiles()+1, FileStart[0] == 0
	Root      []uint32
}

// NumRules returns the number of rules (the root not counted).
func (g *Grammar) NumRules() int { return len(g.RuleStart) - 1 }

// NumFiles returns the number of files.
func (g *Grammar) NumFiles() int { return len(g.FileStart) - 1 }

// Rule returns rule r's body.
func (g *Grammar) Rule(r int) []uint32 { return g.Body[g.RuleStart[r]:g.RuleStart[r+1]] }

// File returns the root's symbols for file f.
func (g *Grammar) File(f int) []uint32 { return g.Root[g.FileStart[f]:g.FileStart[f+1]] }

// Size returns the number of symbols in the grammar: rule bodies and root.
func (g *Grammar) Size() int { return len(g.Body) + len(g.Root) }

// Validate checks the structure: offsets that start at 0, never decrease
// and end at the slices' lengths; rule bodies of at least two symbols;
// words below numWords; rule references below the referring rule (and
// below NumRules in the root). A valid grammar is acyclic, so expanding
// it terminates.
func (g *Grammar) Validate(numWords int) error {
	if err := checkOffsets("rule", g.RuleStart, len(g.Body)); err != nil {
		return err
	}
	if err := checkOffsets("file", g.FileStart, len(g.Root)); err != nil {
		return err
	}
	for r := range g.NumRules() {
		body := g.Rule(r)
		if len(body) < 2 {
			return fmt.Errorf("%w: rule %d has %d symbols", ErrInvalid, r, len(body))
		}
		for _, s := range body {
			if err := checkSym(s, numWords, r); err != nil {
				return fmt.Errorf("%w in rule %d", err, r)
			}
		}
	}
	for i, s := range g.Root {
		if err := checkSym(s, numWords, g.NumRules()); err != nil {
			return fmt.Errorf("%w at root symbol %d", err, i)
		}
	}
	return nil
}

func checkOffsets(what string, off []uint32, n int) error {
	if len(off) == 0 || off[0] != 0 || int(off[len(off)-1]) != n {
		return fmt.Errorf("%w: %s offsets do not span the symbols", ErrInvalid, what)
	}
	for i := 1; i < len(off); i++ {
		if off[i] < off[i-1] {
			return fmt.Errorf("%w: %s offset %d decreases", ErrInvalid, what, i)
		}
	}
	return nil
}

func checkSym(s uint32, numWords, ruleLimit int) error {
	if s&RuleFlag != 0 {
		if int(s&^RuleFlag) >= ruleLimit {
			return fmt.Errorf("%w: reference to rule %d", ErrInvalid, s&^RuleFlag)
		}
		return nil
	}
	if int(s) >= numWords {
		return fmt.Errorf("%w: word %d out of range", ErrInvalid, s)
	}
	return nil
}

// Lengths returns the number of words each rule expands to, bottom-up.
// The grammar must be valid. Lengths saturate at the largest uint64.
func (g *Grammar) Lengths() []uint64 {
	n := make([]uint64, g.NumRules())
	for r := range n {
		var l uint64
		for _, s := range g.Rule(r) {
			add := uint64(1)
			if s&RuleFlag != 0 {
				add = n[s&^RuleFlag]
			}
			if l+add < l {
				l = ^uint64(0)
				break
			}
			l += add
		}
		n[r] = l
	}
	return n
}

// Expand appends the words that syms expand to. The grammar must be valid.
func (g *Grammar) Expand(dst []uint32, syms []uint32) []uint32 {
	type frame struct{ at, end uint32 } // a range of Body still to expand
	var stack []frame
	for _, s := range syms {
		if s&RuleFlag == 0 {
			dst = append(dst, s)
			continue
		}
		r := s &^ RuleFlag
		stack = append(stack[:0], frame{g.RuleStart[r], g.RuleStart[r+1]})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.at == top.end {
				stack = stack[:len(stack)-1]
				continue
			}
			s := g.Body[top.at]
			top.at++
			if s&RuleFlag == 0 {
				dst = append(dst, s)
				continue
			}
			c := s &^ RuleFlag
			stack = append(stack, frame{g.RuleStart[c], g.RuleStart[c+1]})
		}
	}
	return dst
}
