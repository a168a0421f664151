// Package analysis turns text into index terms, the same way at index time
// and at query time.
//
// Pipeline (docs/design.md, "Analysis"): Unicode word segmentation (UAX #29, as
// implemented by github.com/blevesearch/segment); only the segments whose
// type is Letter, Number, Ideo or Kana are kept, so whitespace and
// punctuation vanish; each kept segment is lowercased with strings.ToLower
// and stemmed with Porter2 (github.com/kljensen/snowball/english, stop words
// stemmed too). No stop words are removed. The number of terms emitted for a
// document is its length.
//
// Invariants:
//   - Output depends only on the input bytes: the stem cache, the chunking
//     below and the reuse of an Analyzer never change what is emitted.
//   - Every term is non-empty, valid UTF-8 and at most MaxTokenLen bytes
//     before stemming.
//   - Any input is accepted. Bytes that are not valid UTF-8 act as
//     separators (callers normally repair them first with U+FFFD, which also
//     separates); Analyze never panics.
//
// Decisions:
//   - Segments longer than MaxTokenLen (255) bytes are dropped, as Lucene's
//     standard tokenizer caps tokens: such runs are base64 blobs, hashes or
//     unbroken non-Latin text, not words anyone types, and would bloat the
//     lexicon.
//   - Stems are cached per Analyzer, keyed by the segment's raw bytes (so a
//     hit costs no lowercasing and no allocation); the cache holds at most
//     1<<16 entries and is cleared when full. Porter2 thus runs about once
//     per distinct word form.
//   - A run of ASCII letters, digits and '_' between bytes that no word
//     can hold (spaces, most punctuation, or '.', ',', ':', ';' and quotes
//     not followed by a letter or digit) is a word segment whatever
//     surrounds it, and becomes a term without the segmenter; everything
//     else is segmented. The output is the segmenter's, byte for byte
//     (tests compare every short text over the deciding characters, and
//     fuzz), at about 5x the speed on English text.
//   - The segmenter is run on chunks of about 16 KiB rather than on the whole
//     text at once, so memory stays bounded on any document. A chunk ends at
//     a position that is a word boundary whatever follows: after an ASCII
//     byte that can never be inside a word (space, newline, most
//     punctuation), or after an ideograph, a hiragana letter, ideographic
//     punctuation or a non-ASCII space, in each case when the next character
//     is not a combining mark or format character. Only when no such
//     position exists within 64 KiB is a chunk cut at a plain character
//     boundary; a word cut there (necessarily inside 64 KiB without a space)
//     is split in two.
//   - Scripts written without spaces whose letters UAX #29 leaves to a
//     dictionary (Thai, Lao, Khmer, Myanmar) segment into single characters
//     of type None in this segmenter and so yield no terms; ideographs
//     (Han) and hiragana yield one term per character, katakana and hangul
//     one term per run.
//   - An Analyzer is not safe for concurrent use; use one per goroutine.
package analysis
