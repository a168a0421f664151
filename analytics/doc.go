// Package analytics runs text analytics directly on a grammar-compressed
// corpus, without decompressing it, after TADOC and G-TADOC (Zhang et al.,
// "Efficient document analytics on compressed data", PVLDB 2018, and
// "G-TADOC: enabling efficient GPU-based text analytics without
// decompression", ICDE 2021).
//
// # Compression
//
// Compress walks a crawl as the indexer does (indexer.Documents: same
// files, same URLs, URL order, unreadable documents left out), turns each
// document into words with the indexer's analysis (or, Raw, the same word
// segmentation lowercased and unstemmed), codes each word by a dictionary,
// and feeds the whole corpus to one Sequitur grammar (package sequitur)
// with a file boundary after each document. Repeats across documents become
// shared rules; no rule spans a boundary, so the root keeps one run of
// symbols per document. The dictionary is then sorted, so that word ids
// follow the words' byte order.
//
// # Format
//
// A directory, every file written under a temporary name, synced and
// renamed, meta.json last:
//
//	dict.bin     uvarint n, then n x (uvarint length, bytes): the words, strictly increasing
//	urls.bin     the same encoding: docid -> URL
//	grammar.bin  uvarint R, R x uvarint body length, the bodies' symbols;
//	             uvarint F, F x uvarint root run length, the root's symbols.
//	             A symbol is a uvarint, 2w for word w, 2r+1 for rule r.
//	meta.json    format version, analysis, counts (documents, words, rules,
//	             tokens), the compression measurements, size and CRC-32C of
//	             each other file
//
// Invariants Open checks: checksums and sizes; rule r refers only to
// rules below r (so the DAG is acyclic and rules in increasing order are
// children first), bodies have two symbols or more, words are below the
// dictionary size; every document expands to fewer than 2^32 words and the
// total matches meta.json (a small grammar can describe an enormous text).
// Damage is reported as ErrCorrupt, another format version as ErrVersion.
//
// # Tasks
//
// The six tasks of TADOC, on the words of the compressed form:
//
//	wordcount   count of each word over the corpus
//	sort        the words in byte order with their counts
//	invindex    word -> (docid, tf) postings by docid: what the indexer writes
//	termvector  docid -> (word, tf), by word
//	seqcount    docid -> (sequence of SeqLen words, count), by sequence
//	rankedinv   word -> (docid, tf) by tf descending, then docid
//
// TADOC's ranked inverted index ranks word sequences per document; here it
// ranks the word postings, so that invindex and rankedinv both hold the
// indexer's postings (BuildIndex writes a searchable index from them).
//
// JSON (Result.WriteJSON; object keys are words, or a sequence's words
// joined by one space, since words never contain white space):
//
//	wordcount   {"counts":{"word":n,...}}
//	sort        {"words":[{"word":"a","count":n},...]}                     (byte order)
//	invindex    {"documents":["url",...],"postings":{"word":[[docid,tf],...],...}}
//	rankedinv   the same, each list by tf descending, then docid
//	termvector  {"documents":[{"docid":0,"url":"...","terms":{"word":tf,...}},...]}
//	seqcount    {"seq_len":3,"documents":[{"docid":0,"url":"...","counts":{"w1 w2 w3":n,...}},...]}
//
// # Traversals
//
// Each rule contributes its own items (its words not inside a child rule;
// for seqcount the sequences it owns, below), and results combine them
// along the DAG in one of two directions:
//
//   - Top-down: weights flow from the root to the leaves, parents first
//     (decreasing rule number). For corpus-wide counts a weight is a
//     number, the times the rule is expanded; per document it is a list of
//     (docid, times) pairs, sorted and merged at each rule before it is
//     passed on. Items collect (docid, count) pairs per key.
//   - Bottom-up: tables flow from the leaves to the root, children first.
//     Each rule's table is every key of its expansion with its count,
//     merged in a sparse accumulator from its children's tables and its own
//     items; a table is freed when its last parent has used it, unless the
//     root refers to it. Each document's result merges the tables of the
//     rules its root run refers to, as the paper does for the second-level
//     nodes. Word tables bottom-up run on Corpus.Inlined, where only the
//     rules whose table pays for itself keep one and the others are
//     written out in their parents (the GPU engine's seqcount too).
//
// Choosing (Auto). Corpus-wide counts always go top-down: one pass over
// the grammar, and bottom-up is never cheaper since each table holds at
// least its rule's own words. Per-document tasks compute two cost
// estimates in one pass over the DAG and take the cheaper:
//
//   - top-down: sum over rules of files(r) x (distinct children + own
//     keys), where files(r) = min(weight(r), last - first file it occurs
//     in + 1) bounds the length of its (docid, weight) list;
//   - bottom-up: sum over rules and documents of the table sizes merged,
//     a table bounded by min(keys, own keys + children's bounds).
//
// Both are upper bounds. They reproduce the paper's finding: a few long
// documents favour top-down (short lists), many small documents that
// share rules favour bottom-up (the lists grow with the documents a rule
// reaches, the tables do not). docs/analytics.md measures both and the
// choice on real corpora.
//
// # Sequences
//
// seqcount uses G-TADOC's head and tail buffers: for every rule, bottom-up,
// the first and the last min(l-1, length) words of its expansion. The
// sequences a rule owns are the l-word windows of its expansion that do not
// lie inside one child rule's expansion; they all fall in a compact stream
// of the rule's body in which each child is replaced by its whole
// expansion when that is at most 2(l-1) words, else by its head and its
// tail. Windows inside one child's part are skipped (among them every
// window that joins a head to its tail, head and tail being l-1 words),
// so each window of the text is counted exactly once, by the lowest rule
// that contains it whole (or by the document's root run).
// Sequence ids are interned (packed into a uint64 when l word ids fit) and
// renumbered in the sequences' order, so results are canonical.
//
// # Baseline
//
// RunPlain computes the same results from decompressed documents with the
// same data structures (a sparse accumulator per document, the same
// sequence interner): the uncompressed baseline of the measurements.
// Corpus.Text writes the words as text and a Lexer reads them back, for
// the baseline that starts from text, as the G-TADOC paper's does.
//
// Decisions: the CPU engine is single-threaded (TADOC's CPU baseline is
// sequential; the dev machine has 2 shared cores). Counts inside one
// document are uint32 (documents are shorter than 2^32 words).
package analytics
