// Package sequitur infers a straight-line grammar from a word sequence with
// Nevill-Manning and Witten's Sequitur ("Identifying hierarchical structure
// in sequences: a linear-time algorithm", JAIR 1997), the compressor that
// TADOC and G-TADOC analyse without decompressing.
//
// The Builder keeps two invariants after every word: digram uniqueness (no
// pair of adjacent symbols occurs twice in the grammar, overlapping
// occurrences such as the two in "aaa" excepted) and rule utility (every
// rule is referenced at least twice). A repeated digram becomes a rule, or
// a reference to the rule whose whole body it is; a rule whose references
// drop to one is expanded in place.
//
// Files. EndFile appends a separator to the root. A digram that touches a
// separator is never recorded, so no rule spans two files and the root
// splits cleanly into one symbol run per file (Grammar.File); the separators
// themselves are not kept.
//
// Decisions.
//
//   - Nodes live in flat arrays (symbol, prev, next: 12 bytes each) linked
//     into one circular list per rule through a guard node, and are reused
//     through a free list; the digram table is an open-addressing hash
//     table of packed symbol pairs (12 bytes a slot, half full at most).
//   - The classic implementation enforces the invariants by recursion in the
//     middle of a substitution and misses the digrams created when a rule
//     is expanded. Here every link that changes queues its left node on a
//     work list, and the list is drained after each word: a queued node is
//     checked against the table only once the substitution that queued it
//     is complete, so no check ever sees a half-edited rule, and the
//     digrams created by an expansion are checked like any other. When a
//     recorded occurrence is dropped, its neighbours are queued too, since
//     an overlapping occurrence ("aaa") may be the one left unrecorded.
//   - After a match, only the two symbols of the matched digram (now the
//     body of the rule that replaced it) lost references, so rule utility
//     is checked on exactly those two.
//   - Grammar numbers the rules in depth-first post-order from the root:
//     every rule refers only to smaller numbers. Increasing order is a
//     bottom-up (children first) traversal and decreasing order a top-down
//     one, with no sort at analysis time; Validate checks this order, which
//     also proves the grammar acyclic.
//
// Each word costs amortised constant time, as in the original: every match
// removes at least one symbol from the grammar, and each queued node is
// checked once.
package sequitur
