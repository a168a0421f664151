package sequitur

import "fmt"

// Symbol spaces inside a Builder. A Grammar uses only words and RuleFlag|r.
const (
	// RuleFlag marks a symbol of a Grammar that refers to a rule: symbol
	// RuleFlag|r is rule r; a symbol without it is a word.
	RuleFlag = 1 << 31
	// MaxWord is the largest word a Builder accepts.
	MaxWord = 1<<30 - 1

	sepSym    = 1 << 30                  // a file separator in the root
	guardSyms = RuleFlag | 1<<30         // guardSyms|r is the guard node of rule r
	deadSym   = ^uint32(0)               // a freed node
	maxRules  = 1<<30 - 1                // rule ids stay below this
	nilNode   = int32(-1)                // no node
	rootRule  = 0                        // the Builder's rule id of the root
	wordMask  = uint32(RuleFlag | 1<<30) // a symbol is a word when none of these bits is set
)

// Builder infers a grammar from a sequence of words, one word at a time,
// with Nevill-Manning and Witten's Sequitur. The zero value is not usable;
// call New.
type Builder struct {
	sym        []uint32 // node -> symbol
	prev, next []int32  // node -> neighbour in its rule's circular list
	freeNodes  int32    // free list of nodes, linked through next
	guard      []int32  // rule -> its guard node (nilNode once freed)
	count      []int32  // rule -> number of references to it
	freeRules  []uint32
	table      digramTable
	work       []int32 // nodes whose digram must be checked
	words      uint64
	files      int
	inFile     bool // a word was added since the last EndFile
}

// New returns a Builder holding an empty root.
func New() *Builder {
	b := &Builder{freeNodes: nilNode, table: newDigramTable()}
	b.newRule() // the root, rule 0
	return b
}

// Words returns the number of words added so far.
func (b *Builder) Words() uint64 { return b.words }

// Add appends a word (at most MaxWord) to the current file.
func (b *Builder) Add(w uint32) {
	if w > MaxWord {
		panic(fmt.Sprintf("sequitur: word %d above MaxWord", w))
	}
	b.appendRoot(w)
	b.words++
	b.inFile = true
}

// EndFile ends the current file; the next word starts a new one. No rule
// ever spans a file boundary.
func (b *Builder) EndFile() {
	b.appendRoot(sepSym)
	b.files++
	b.inFile = false
}

func (b *Builder) appendRoot(s uint32) {
	g := b.guard[rootRule]
	n := b.newNode(s)
	b.insertAfter(b.prev[g], n)
	for len(b.work) > 0 {
		x := b.work[len(b.work)-1]
		b.work = b.work[:len(b.work)-1]
		b.check(x)
	}
}

func (b *Builder) newNode(s uint32) int32 {
	var x int32
	if b.freeNodes != nilNode {
		x = b.freeNodes
		b.freeNodes = b.next[x]
		b.sym[x] = s
	} else {
		x = int32(len(b.sym))
		if x < 0 || len(b.sym) >= 1<<31-1 {
			panic("sequitur: more than 2^31 nodes")
		}
		b.sym = append(b.sym, s)
		b.prev = append(b.prev, nilNode)
		b.next = append(b.next, nilNode)
	}
	b.prev[x], b.next[x] = nilNode, nilNode
	if s&wordMask == RuleFlag {
		b.count[s&^RuleFlag]++
	}
	return x
}

func (b *Builder) freeNode(x int32) {
	b.sym[x] = deadSym
	b.prev[x] = nilNode
	b.next[x] = b.freeNodes
	b.freeNodes = x
}

// newRule returns a rule with an empty body.
func (b *Builder) newRule() uint32 {
	var r uint32
	if n := len(b.freeRules); n > 0 {
		r = b.freeRules[n-1]
		b.freeRules = b.freeRules[:n-1]
	} else {
		if len(b.guard) >= maxRules {
			panic("sequitur: too many rules")
		}
		r = uint32(len(b.guard))
		b.guard = append(b.guard, nilNode)
		b.count = append(b.count, 0)
	}
	g := b.newNode(guardSyms | r)
	b.next[g], b.prev[g] = g, g
	b.guard[r] = g
	b.count[r] = 0
	return r
}

func isGuardSym(s uint32) bool { return s&guardSyms == guardSyms }

// key returns the digram that starts at x, and false when it is never
// recorded (it touches a guard or a file separator).
func (b *Builder) key(x int32) (uint64, bool) {
	a, c := b.sym[x], b.sym[b.next[x]]
	if a == sepSym || c == sepSym || isGuardSym(a) || isGuardSym(c) {
		return 0, false
	}
	return uint64(a)<<32 | uint64(c), true
}

// forget drops the digram starting at x from the table if x is its
// recorded occurrence. An overlapping occurrence next to it ("aaa") may
// be the one left unrecorded, so both neighbours are checked again.
func (b *Builder) forget(x int32) {
	k, ok := b.key(x)
	if !ok || b.table.get(k) != x {
		return
	}
	b.table.del(k)
	b.work = append(b.work, b.prev[x], b.next[x])
}

// join makes r follow l and queues the new digram.
func (b *Builder) join(l, r int32) {
	if b.next[l] != nilNode {
		b.forget(l)
	}
	b.next[l], b.prev[r] = r, l
	b.work = append(b.work, l)
}

func (b *Builder) insertAfter(x, y int32) {
	b.join(y, b.next[x])
	b.join(x, y)
}

// unlink removes x from its list and frees it.
func (b *Builder) unlink(x int32) {
	p, n := b.prev[x], b.next[x]
	b.forget(x)
	b.join(p, n)
	if s := b.sym[x]; s&wordMask == RuleFlag {
		b.count[s&^RuleFlag]--
	}
	b.freeNode(x)
}

// check enforces digram uniqueness for the digram starting at x.
func (b *Builder) check(x int32) {
	if b.sym[x] == deadSym {
		return
	}
	k, ok := b.key(x)
	if !ok {
		return
	}
	z := b.table.get(k)
	switch {
	case z == nilNode:
		b.table.put(k, x)
	case z == x, b.next[z] == x, b.next[x] == z:
		// Recorded here, or overlapping the recorded one ("aaa").
	default:
		b.match(x, z)
	}
}

// isBody reports whether the digram at x is the whole body of its rule.
func (b *Builder) isBody(x int32) bool {
	return isGuardSym(b.sym[b.prev[x]]) && isGuardSym(b.sym[b.next[b.next[x]]])
}

// match replaces the two non-overlapping occurrences of one digram, at x
// and at z (the recorded one), by a rule: the rule whose whole body one of
// them is, or a new one. It then enforces rule utility on the rule's
// symbols, the only rules whose reference counts dropped.
func (b *Builder) match(x, z int32) {
	var r uint32
	switch {
	case b.isBody(z):
		r = b.sym[b.prev[z]] &^ guardSyms
		b.substitute(x, r)
	case b.isBody(x):
		r = b.sym[b.prev[x]] &^ guardSyms
		k, _ := b.key(x)
		b.substitute(z, r) // drops k, recorded at z
		b.table.put(k, x)
	default:
		r = b.newRule()
		g := b.guard[r]
		k, _ := b.key(z)
		first, second := b.newNode(b.sym[z]), b.newNode(b.sym[b.next[z]])
		b.next[g], b.prev[first] = first, g
		b.next[first], b.prev[second] = second, first
		b.next[second], b.prev[g] = g, second
		b.substitute(z, r) // drops k, recorded at z
		b.substitute(x, r)
		b.table.put(k, first)
	}
	g := b.guard[r]
	if f := b.next[g]; b.sym[f]&wordMask == RuleFlag && b.count[b.sym[f]&^RuleFlag] == 1 {
		b.expand(f)
	}
	if l := b.prev[g]; b.sym[l]&wordMask == RuleFlag && b.count[b.sym[l]&^RuleFlag] == 1 {
		b.expand(l)
	}
}

// substitute replaces the digram starting at x by a reference to rule r.
func (b *Builder) substitute(x int32, r uint32) {
	p := b.prev[x]
	b.unlink(b.next[x])
	b.unlink(x)
	b.insertAfter(p, b.newNode(RuleFlag|r))
}

// expand replaces x, the only reference to its rule, by the rule's body,
// and frees the rule.
func (b *Builder) expand(x int32) {
	r := b.sym[x] &^ RuleFlag
	g := b.guard[r]
	f, l := b.next[g], b.prev[g]
	left, right := b.prev[x], b.next[x]
	b.forget(left)
	b.forget(x)
	b.next[left], b.prev[f] = f, left
	b.next[l], b.prev[right] = right, l
	b.work = append(b.work, left, l)
	b.freeNode(x)
	b.freeNode(g)
	b.guard[r] = nilNode
	b.count[r] = 0
	b.freeRules = append(b.freeRules, r)
}

// Grammar returns the grammar inferred so far. Words added after the last
// EndFile form one more file. Rules are numbered so that every rule refers
// only to rules with smaller numbers. The Builder may be used further.
func (b *Builder) Grammar() *Grammar {
	g := &Grammar{RuleStart: []uint32{0}, FileStart: []uint32{0}}
	id := make([]uint32, len(b.guard)) // builder rule -> 1 + grammar rule; 0: not numbered yet
	type frame struct {
		rule uint32
		at   int32 // next node of the rule's body to visit
	}
	var stack []frame
	number := func(root uint32) {
		stack = append(stack[:0], frame{root, b.next[b.guard[root]]})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.at == b.guard[top.rule] {
				for x := b.next[top.at]; x != top.at; x = b.next[x] {
					g.Body = append(g.Body, b.grammarSym(x, id))
				}
				g.RuleStart = append(g.RuleStart, uint32(len(g.Body)))
				id[top.rule] = uint32(len(g.RuleStart) - 1)
				stack = stack[:len(stack)-1]
				continue
			}
			s := b.sym[top.at]
			top.at = b.next[top.at]
			if s&wordMask == RuleFlag && id[s&^RuleFlag] == 0 {
				c := s &^ RuleFlag
				id[c] = ^uint32(0) // on the stack
				stack = append(stack, frame{c, b.next[b.guard[c]]})
			}
		}
	}
	groot := b.guard[rootRule]
	for x := b.next[groot]; x != groot; x = b.next[x] {
		if s := b.sym[x]; s&wordMask == RuleFlag && id[s&^RuleFlag] == 0 {
			number(s &^ RuleFlag)
		}
	}
	for x := b.next[groot]; x != groot; x = b.next[x] {
		if b.sym[x] == sepSym {
			g.FileStart = append(g.FileStart, uint32(len(g.Root)))
			continue
		}
		g.Root = append(g.Root, b.grammarSym(x, id))
	}
	if b.inFile {
		g.FileStart = append(g.FileStart, uint32(len(g.Root)))
	}
	return g
}

// grammarSym maps the symbol of node x to the Grammar's numbering.
func (b *Builder) grammarSym(x int32, id []uint32) uint32 {
	s := b.sym[x]
	if s&wordMask == RuleFlag {
		return RuleFlag | (id[s&^RuleFlag] - 1)
	}
	return s
}
