package analysis

import (
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/segment"
	"github.com/kljensen/snowball/english"
)

// MaxTokenLen is the length in bytes of the longest segment that becomes a
// term; longer segments are dropped.
const MaxTokenLen = 255

// Defaults for an Analyzer's tunables (fields, so that tests can shrink them).
const (
	defaultCacheCap   = 1 << 16 // stem cache entries before it is cleared
	defaultChunkSize  = 16 << 10
	defaultChunkLimit = 64 << 10
)

// Analyzer turns text into terms. It keeps a stem cache and scratch buffers
// between calls, so reuse one per goroutine; it is not safe for concurrent
// use.
type Analyzer struct {
	cache      map[string]string // raw segment -> term
	cacheCap   int
	chunkSize  int // a chunk ends at the first safe boundary past this
	chunkLimit int // ... or is cut at a character boundary here
	vals       [][]byte
	types      []int
}

// New returns an Analyzer with an empty stem cache.
func New() *Analyzer {
	return &Analyzer{
		cache:      make(map[string]string, 1024),
		cacheCap:   defaultCacheCap,
		chunkSize:  defaultChunkSize,
		chunkLimit: defaultChunkLimit,
	}
}

// Analyze calls emit with each term of text, in order. Bytes that are not
// valid UTF-8 separate words. The string passed to emit may be retained.
func (a *Analyzer) Analyze(text []byte, emit func(term string)) {
	a.AnalyzeOffsets(text, func(term string, _, _ int) { emit(term) })
}

// AnalyzeOffsets is Analyze that also gives where each term's word lies:
// text[start:end] is the segment the term was made from (snippets mark it).
func (a *Analyzer) AnalyzeOffsets(text []byte, emit func(term string, start, end int)) {
	for off := 0; off < len(text); {
		n := validPrefix(text[off:])
		for run := off; run < off+n; {
			end := a.cut(text[run : off+n])
			a.segment(text[run:run+end], run, emit)
			run += end
		}
		off += n + 1 // skip one invalid byte
	}
}

// Terms returns all the terms of text, in order.
func (a *Analyzer) Terms(text string) []string {
	var terms []string
	a.Analyze([]byte(text), func(t string) { terms = append(terms, t) })
	return terms
}

// segment emits the terms of the word segments of b, which is valid UTF-8,
// lies at offset off of the text and starts at a safe boundary (cut). A
// run of ASCII letters, digits and '_' between bytes outside any word
// (outside) is one segment whatever surrounds it (UAX #29: only mid-word
// punctuation and quotes followed by a letter or digit, '_', joiners,
// combining marks and regional indicators join across a boundary), so it
// becomes a term without the segmenter, which costs about half of an
// index build. Any other stretch (non-ASCII text, "don't", "3.14",
// "http.Server") goes to the segmenter, from the end of what was handed
// out to the next position after an ASCII separator and before an ASCII
// byte: a boundary where nothing before it changes how the segmenter cuts
// what follows, so each stretch segments as it would within b.
func (a *Analyzer) segment(b []byte, off int, emit func(string, int, int)) {
	from := 0 // b[:from] is handed out; from is a safe boundary
	for i := 0; i < len(b); {
		if outside(b, i) {
			i++ // b[from:i] holds no word
			continue
		}
		j, alnum := i, false
		for j < len(b) && asciiClass[b[j]] == wordByte {
			alnum = alnum || b[j] != '_'
			j++
		}
		if alnum && (j == len(b) || outside(b, j)) {
			if t, ok := a.Term(b[i:j]); ok {
				emit(t, off+i, off+j)
			}
			i, from = j, j
			continue
		}
		k := max(j, i+1)
		for k < len(b) && !(b[k] < utf8.RuneSelf && asciiClass[b[k-1]] == separator) {
			k++
		}
		a.segmentText(b[from:k], off+from, emit)
		i, from = k, k
	}
}

// outside reports whether b[i] is in no word segment of b, whatever
// precedes it: an ASCII separator, or mid-word punctuation or a quote
// that no letter or digit follows (UAX #29 WB6, WB7, WB11, WB12 join
// them only to one that does).
func outside(b []byte, i int) bool {
	switch asciiClass[b[i]] {
	case separator:
		return true
	case midWord:
		return i+1 == len(b) || asciiClass[b[i+1]] == separator
	}
	return false
}

// The classes of asciiClass.
const (
	nonASCII  = iota // a byte of a multi-byte character
	separator        // an ASCII byte never inside a word
	wordByte         // an ASCII letter, digit or '_'
	midWord          // an ASCII byte inside a word only between letters or digits
)

// asciiClass sorts bytes for segment's fast path.
var asciiClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c >= utf8.RuneSelf:
			t[c] = nonASCII
		case !asciiInWord[c]:
			t[c] = separator
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_':
			t[c] = wordByte
		default:
			t[c] = midWord
		}
	}
	return t
}()

// segmentText runs the segmenter over b, which is valid UTF-8 and lies at
// offset off of the text, and emits the terms of its word segments.
func (a *Analyzer) segmentText(b []byte, off int, emit func(string, int, int)) {
	for len(b) > 0 {
		vals, types, n, _ := segment.SegmentWordsDirect(b, a.vals[:0], a.types[:0])
		at := off // the segments tile b[:n]
		for i, v := range vals {
			switch types[i] {
			case segment.Letter, segment.Number, segment.Ideo, segment.Kana:
				if t, ok := a.Term(v); ok {
					emit(t, at, at+len(v))
				}
			}
			at += len(v)
		}
		clear(vals) // do not pin the caller's text
		a.vals, a.types = vals[:0], types[:0]
		if n <= 0 {
			// The segmenter stopped without consuming anything (an error on
			// input it does not handle): skip one character.
			_, n = utf8.DecodeRune(b)
		}
		b, off = b[n:], off+n
	}
}

// Term returns the term of one word segment v, a segment of type Letter,
// Number, Ideo or Kana as Analyze finds them (an ASCII word of letters,
// digits and '_' between separators is one), using the cache; false for
// a segment too long to be one. Snippets use it to match words without
// segmenting their text again.
func (a *Analyzer) Term(v []byte) (string, bool) {
	if len(v) > MaxTokenLen {
		return "", false
	}
	if t, ok := a.cache[string(v)]; ok {
		return t, true
	}
	key := string(v)
	t := english.Stem(strings.ToLower(key), true)
	if len(a.cache) >= a.cacheCap {
		clear(a.cache)
	}
	a.cache[key] = t
	return t, true
}

// validPrefix returns the length of the longest prefix of b that is valid
// UTF-8.
func validPrefix(b []byte) int {
	i := 0
	for i < len(b) {
		for i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 == 0 {
			i += 8
		}
		if i == len(b) {
			break
		}
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// cut returns where the next chunk of the valid UTF-8 text b ends: all of
// b if it is short, else the first safe word boundary at or after
// chunkSize, else all of b if it is at most chunkLimit long, else a
// character boundary at chunkLimit.
func (a *Analyzer) cut(b []byte) int {
	if len(b) <= a.chunkSize {
		return len(b)
	}
	i := a.chunkSize
	for i < len(b) && !utf8.RuneStart(b[i]) {
		i++
	}
	for i < len(b) && i < a.chunkLimit {
		next, size := rune(b[i]), 1
		if next >= utf8.RuneSelf {
			next, size = utf8.DecodeRune(b[i:])
		}
		prev := rune(b[i-1])
		if prev >= utf8.RuneSelf {
			prev, _ = utf8.DecodeLastRune(b[:i])
		}
		if breaksAfter(prev) && !attaches(next) {
			return i
		}
		i += size
	}
	if len(b) <= a.chunkLimit {
		return len(b)
	}
	return i // a character boundary: the loop steps by characters
}

// asciiInWord marks the ASCII bytes that can be part of a word segment:
// letters and digits (ALetter, Numeric), the mid-word punctuation
// (MidLetter ':', MidNum ',' ';', MidNumLet '.', quotes) and the
// connector '_' (ExtendNumLet).
var asciiInWord = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte(`:,;.'"_`, byte(c)) >= 0
	}
	return t
}()

// breaksAfter reports whether every word segment ends at r: r is never part
// of a kept segment and, unless a combining mark follows, nothing after it
// joins it (UAX #29 WB3a, WB14).
func breaksAfter(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return !asciiInWord[r]
	case 0x3000 <= r && r <= 0x3002, // ideographic space, comma, full stop
		0x3041 <= r && r <= 0x3096, // hiragana letters
		0x3400 <= r && r <= 0x4DBF, // CJK unified ideographs extension A
		0x4E00 <= r && r <= 0x9FFF, // CJK unified ideographs
		0xF900 <= r && r <= 0xFAFF: // CJK compatibility ideographs
		return true
	}
	return unicode.Is(unicode.White_Space, r)
}

// attaches reports whether r may continue the segment before it whatever
// that is (UAX #29 WB4: Extend and Format characters).
func attaches(r rune) bool {
	return r >= utf8.RuneSelf &&
		unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc, unicode.Cf, unicode.Other_Grapheme_Extend)
}
