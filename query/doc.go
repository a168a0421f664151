// Package query turns query text into analyzed terms and answers ranked
// queries over an index: the Engine interface, the bounded top-k heap, and
// the engines themselves, from the exhaustive term-at-a-time reference
// scorer to the pruning document-at-a-time ones.
//
// Modes: "and" scores the documents that hold every term, "or" those that
// hold any, and "andor" runs AND and falls back to OR when AND finds fewer
// than k documents. Duplicate query terms are merged (a term counts once).
// A term the index does not hold makes an AND query empty and is ignored by
// OR.
//
// Scores are BM25 (package index/bm25): a document's score is the float32
// sum of its term scores, added in query-term order starting from zero, on
// every engine, so engines agree bit for bit. Results are ordered by score
// descending, then docid ascending.
package query
