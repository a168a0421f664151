// Package snippet cuts query-biased snippets from a document's stored
// text: the window of about the Maker's size in bytes holding the most
// distinct query units (a term outside any phrase, or a whole phrase
// whose terms appear in order), cut at word boundaries, with the matched
// words marked.
//
// Matching uses the indexing analysis (analysis.Analyzer: segmenter, lower
// case, Porter2), so "running" in the text is marked for the query "run",
// and a phrase matches exactly where the phrase engines would find it.
//
// Cost. Running the segmenter over a whole document for each hit would
// cost tens of microseconds per kilobyte, so the text is first scanned a
// byte at a time (a table lookup per byte) for the characters that may
// begin a query term: a stem keeps its word's first letter. A word of
// ASCII letters, digits and '_' between separators (space, most
// punctuation) is one segment whatever surrounds it; such a word is
// stemmed (analysis.Term, through the analyzer's cache) only when its
// first two letters may begin a word of a term (Maker.pairs) and it is no
// shorter than that term (Porter2 never lengthens a word). Any other stretch of text holding a candidate
// (non-ASCII letters, "don't", "3.14", "http.Server") is handed to the
// analyzer exactly as it would cut it, from one safe boundary (after a
// separator, before an ASCII byte) to the next, so offsets and terms are
// the analyzer's own. A query with phrases needs every term's position,
// so its scan counts every word and analyzes every such stretch, candidate
// or not. Scanning stops once a window holds every unit the text can
// hold (all of them, or those whose terms the index says it holds) and
// the windows that could beat it (earlier ones) are complete, and never
// goes past MaxScan bytes.
package snippet

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gpusearch/gpusearch/analysis"
)

// DefaultSize is the snippet length in bytes when none is configured:
// about two lines of text.
const DefaultSize = 160

// MaxScan is how far into a text matches are looked for, in bytes; a
// larger text's snippet comes from its first MaxScan bytes. It bounds a
// hit's cost: a query of common words ("the", "of") matches every few
// words, and an RFC of 100 KB then took 0.2 ms to scan whole on the
// development machine. Lucene's highlighter looks at 50 K characters by
// default.
const MaxScan = 64 << 10

// Ellipsis marks where a snippet cuts the text.
const Ellipsis = "…"

// Query is what a snippet looks for.
type Query struct {
	Terms   []string   // analyzed terms; those in a phrase count only within it
	Phrases [][]string // each phrase's analyzed terms, in order
}

// Snippet is a piece of a document's text with the query's matches marked.
type Snippet struct {
	Text       string   // valid UTF-8, whitespace runs as one space, Ellipsis where cut
	Highlights [][2]int // byte ranges of Text holding matched words, ascending
}

// A Maker makes the snippets of one query's hits. It caches the analysis
// of the word forms it meets, so reuse it for all the hits of a query; it
// is not safe for concurrent use.
type Maker struct {
	size    int
	ids     map[string]int32 // term -> term id
	unit    []int32          // term id -> its unit as a bare term, or -1
	phrases [][]int32        // phrase unit ids are nbare + the phrase's index
	units   int
	hot     [256]bool      // ASCII bytes that, lowercased, begin a term; non-ASCII lead bytes
	minLen  [256]uint8     // ASCII byte -> the shortest term it begins, lowercased
	second  [128][2]uint64 // ASCII first byte -> the second bytes its terms' words may have (pairs)
	firsts  []rune         // the terms' first characters

	buf       []byte
	matches   []match
	occs      []occ
	counted   int   // terms of the last region analyzed
	seen      []int // unit -> stamp of the last window that counted it
	stamp     int
	found     int    // distinct units met so far
	met       []bool // unit -> met so far
	reachable int    // units the text can hold, by its terms
	settled   bool   // a window holds every reachable unit

	// Locate's scratch.
	byID    [][]uint32
	lists   []unitList
	phrased []uint32
	located []located
	heads   []uint32
	count   []int
	done    []bool
}

// match is a word of the text that analyzes to a query term.
type match struct {
	term       int32
	start, end int
	pos        int // terms before it in the text
}

// occ is an occurrence of a unit: the words matches[first:last+1].
type occ struct {
	unit        int32
	start, end  int
	first, last int
}

// New returns a Maker of snippets of about size bytes (DefaultSize when
// size <= 0) for q.
func New(q Query, size int) *Maker {
	if size <= 0 {
		size = DefaultSize
	}
	m := &Maker{size: size, ids: map[string]int32{}}
	id := func(t string) int32 {
		if i, ok := m.ids[t]; ok {
			return i
		}
		i := int32(len(m.unit))
		m.ids[t] = i
		m.unit = append(m.unit, -1)
		if c := t[0]; c < utf8.RuneSelf {
			n := uint8(min(len(t), analysis.MaxTokenLen))
			for _, c := range []byte{c, toUpper(c)} {
				m.hot[c] = true
				if m.minLen[c] == 0 || n < m.minLen[c] {
					m.minLen[c] = n
				}
			}
			m.pairs(t)
		}
		if r, _ := utf8.DecodeRuneInString(t); !slices.Contains(m.firsts, r) {
			m.firsts = append(m.firsts, r)
		}
		return i
	}
	inPhrase := map[string]bool{}
	for _, p := range q.Phrases {
		if len(p) > 1 {
			for _, t := range p {
				inPhrase[t] = true
			}
		}
	}
	for _, t := range q.Terms {
		if t == "" || inPhrase[t] {
			continue
		}
		if i := id(t); m.unit[i] < 0 {
			m.unit[i] = int32(m.units)
			m.units++
		}
	}
	for _, p := range q.Phrases {
		if len(p) < 2 {
			continue // a one-word phrase is its term, counted above
		}
		ids := make([]int32, len(p))
		for j, t := range p {
			if t == "" {
				ids = nil
				break
			}
			ids[j] = id(t)
		}
		if ids != nil {
			m.phrases = append(m.phrases, ids)
		}
	}
	m.units += len(m.phrases)
	for c := 0xC0; c < 0x100; c++ {
		m.hot[c] = true // decoded, and checked against firsts
	}
	m.seen = make([]int, m.units)
	m.met = make([]bool, m.units)
	return m
}

// Make returns the snippet of text: the window holding the most distinct
// units (ties: the earliest), or the text's start when none occurs. a is
// the analyzer of the index's terms. held, when not nil, says whether the
// text holds a query term (the index's postings know): the scan then
// stops as soon as a window holds every unit whose terms the text holds,
// where otherwise a text lacking a term is scanned to its end.
func (m *Maker) Make(a *analysis.Analyzer, text string, held func(term string) bool) Snippet {
	return m.make(a, text, held, true, true)
}

// MakeIn is Make over part of a document's text, as Locate found it:
// atStart and atEnd say whether the part begins and ends the text, so
// that an Ellipsis marks the text going on beyond the part too. held,
// when not nil, says whether the part may hold a query term (the
// positions know): as in Make, the scan then stops once a window holds
// every unit the part can hold. It must never say false of a term the
// part holds.
func (m *Maker) MakeIn(a *analysis.Analyzer, part string, atStart, atEnd bool, held func(term string) bool) Snippet {
	return m.make(a, part, held, atStart, atEnd)
}

func (m *Maker) make(a *analysis.Analyzer, text string, held func(term string) bool, atStart, atEnd bool) Snippet {
	m.reset()
	if held != nil {
		m.reachable = m.reach(held)
	}
	if m.reachable > 0 {
		m.scan(a, scanned(text))
	}
	return m.finish(text, atStart, atEnd)
}

// reset forgets the last text's matches: every unit reachable again.
func (m *Maker) reset() {
	m.matches, m.occs, m.found, m.settled = m.matches[:0], m.occs[:0], 0, false
	clear(m.met)
	m.reachable = m.units
}

// finish cuts the snippet of text around the best window of the
// occurrences found.
func (m *Maker) finish(text string, atStart, atEnd bool) Snippet {
	l, r := m.best()
	from, to := 0, 0
	if l < r {
		from, to = m.occs[l].start, m.occs[l].end
		for _, o := range m.occs[l:r] {
			if m.inWindow(o, from) {
				to = max(to, o.end)
			}
		}
	}
	start, end, cutBefore, cutAfter := m.cut(text, from, to)
	return m.render(text, start, end, cutBefore || !atStart, cutAfter || !atEnd, l, r)
}

// scanned returns the part of t that is scanned for matches: all of it, or
// its first MaxScan bytes less the word they cut.
func scanned(t string) string {
	if len(t) <= MaxScan {
		return t
	}
	n := MaxScan
	for n > 0 && class[t[n-1]] != sep {
		n--
	}
	return t[:n]
}

// Byte classes of the scan.
const (
	sep  = iota // ASCII that is never inside a word: words end before it
	word        // ASCII letter, digit or '_': a run of them is one segment
	mid         // ASCII that may join a word between letters or digits: . , : ; ' "
	high        // part of a non-ASCII character, or invalid
)

var class = func() (c [256]uint8) {
	for b := range 256 {
		switch {
		case b >= utf8.RuneSelf:
			c[b] = high
		case 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_':
			c[b] = word
		case strings.IndexByte(`.,:;'"`, byte(b)) >= 0: // with '_', analysis's asciiInWord
			c[b] = mid
		default:
			c[b] = sep
		}
	}
	return c
}()

func toLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c - 'A' + 'a'
	}
	return c
}

func toUpper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// scan collects the matches and unit occurrences of t, stopping early
// once the earliest window holding every unit is settled.
func (m *Maker) scan(a *analysis.Analyzer, t string) {
	if m.phrases != nil {
		m.scanWords(a, t)
	} else {
		m.scanTerms(a, t)
	}
}

// scanTerms finds the terms of a query without phrases. It looks only at
// the characters that may begin a matching word: a byte that begins a
// term, lowercased, after one that cannot be inside an ASCII word, or a
// non-ASCII character whose lower case begins a term.
func (m *Maker) scanTerms(a *analysis.Analyzer, t string) {
	stop, done := len(t), 0 // t[:done] is scanned
	hot := &m.hot
	for i := 0; i < stop; {
		for u := t[:stop]; i < len(u) && !hot[u[i]]; {
			i++ // most bytes: one load and one test each
		}
		if i >= stop {
			break
		}
		c := t[i]
		if c < utf8.RuneSelf {
			if i > 0 && class[t[i-1]] == word {
				i++
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(t[i:])
			if !slices.Contains(m.firsts, unicode.ToLower(r)) {
				i += size
				continue
			}
		}
		j := i
		for j < len(t) && class[t[j]] == word {
			j++
		}
		if j > i && startsAlone(t, i) && endsAlone(t, j) {
			if id := m.word(a, t[i:j]); id >= 0 {
				stop = m.add(id, i, j, 0, stop)
			}
			i, done = j, j
			continue
		}
		s := i // the start of the stretch around i
		for s > done && class[t[s-1]] != sep {
			s--
		}
		k := boundary(t, j)
		stop = m.region(a, t, s, k, 0, stop)
		i, done = k, k
	}
}

// scanWords finds the terms of a query with phrases, counting every term
// of the text for their positions. A word of ASCII letters and digits
// between separators is one term; any other stretch of text is analyzed.
func (m *Maker) scanWords(a *analysis.Analyzer, t string) {
	stop := len(t)
	pos := 0 // terms before i
	for i := 0; i < len(t) && i < stop; {
		if c := t[i]; class[c] == sep || class[c] == mid && startsAlone(t, i) {
			i++ // never part of a term
			continue
		}
		j := i
		for j < len(t) && class[t[j]] == word {
			j++
		}
		if j > i && endsAlone(t, j) { // and starts alone: the bytes before were skipped
			if m.hot[t[i]] {
				if id := m.word(a, t[i:j]); id >= 0 {
					stop = m.add(id, i, j, pos, stop)
				}
			}
			if j-i <= analysis.MaxTokenLen {
				pos++
			}
			i = j
			continue
		}
		k := boundary(t, j)
		stop = m.region(a, t, i, k, pos, stop)
		pos += m.counted
		i = k
	}
}

// startsAlone reports whether no segment of the text runs on into t[i]
// from before: t[i-1] is a separator, or a mid-word character with no
// word before it.
func startsAlone(t string, i int) bool {
	return i == 0 || class[t[i-1]] == sep || class[t[i-1]] == mid && (i == 1 || class[t[i-2]] == sep)
}

// endsAlone reports whether a segment ending before t[j] cannot run on:
// t[j] is a separator, or a mid-word character with no word after it.
func endsAlone(t string, j int) bool {
	return j == len(t) || class[t[j]] == sep || class[t[j]] == mid && (j+1 == len(t) || class[t[j+1]] == sep)
}

// boundary returns the first position at or after j where the analyzer's
// segmentation cannot depend on what lies beyond: after a separator that
// an ASCII byte follows, or the end.
func boundary(t string, j int) int {
	k := j
	for k < len(t) && (class[t[k]] != sep || k+1 < len(t) && t[k+1] >= utf8.RuneSelf) {
		k++
	}
	return min(k+1, len(t))
}

// region analyzes t[s:k], whose first term is the text's pos-th, records
// its matches and sets m.counted to its number of terms.
func (m *Maker) region(a *analysis.Analyzer, t string, s, k, pos, stop int) int {
	m.counted = 0
	m.buf = append(m.buf[:0], t[s:k]...)
	a.AnalyzeOffsets(m.buf, func(term string, b, e int) {
		if id, ok := m.ids[term]; ok {
			stop = m.add(id, s+b, s+e, pos+m.counted, stop)
		}
		m.counted++
	})
	return stop
}

// pairs records the second bytes that a word of ASCII letters, digits
// and '_' may have if it stems to t (lower case, ASCII first byte).
// Porter2 keeps such a word's first two letters, lowercased, except where
// it leaves one letter ("aed", "ued": "a", "u") and in three exceptional
// forms: "dying", "lying" and "tying" stem to "die", "lie" and "tie".
func (m *Maker) pairs(t string) {
	c := t[0]
	switch {
	case len(t) == 1:
		m.second[c] = [2]uint64{^uint64(0), ^uint64(0)}
	case t[1] < utf8.RuneSelf:
		m.second[c][t[1]>>6] |= 1 << (t[1] & 63)
	}
	switch t {
	case "die", "lie", "tie":
		m.second[c]['y'>>6] |= 1 << ('y' & 63)
	}
}

// word returns the term id of w, a whole segment of ASCII letters, digits
// and '_', or -1. A word shorter than every term it could begin is none
// of them: Porter2 only removes and replaces suffixes, never lengthening
// an ASCII word; nor is one whose first two letters begin no term's word
// (pairs). Most words of a text are turned away here, unstemmed.
func (m *Maker) word(a *analysis.Analyzer, w string) int32 {
	if len(w) < int(m.minLen[w[0]]) {
		return -1
	}
	if len(w) >= 2 {
		if c, d := toLower(w[0]), toLower(w[1]); m.second[c][d>>6]&(1<<(d&63)) == 0 {
			return -1
		}
	}
	m.buf = append(m.buf[:0], w...)
	if t, ok := a.Term(m.buf); ok {
		if id, ok := m.ids[t]; ok {
			return id
		}
	}
	return -1
}

// add records a match and the unit occurrences ending at it, and returns
// where the scan may stop: once every unit has occurred, the first window
// holding them all is found; no window starting later can beat it, and
// every window starting earlier is complete a window's length after it.
func (m *Maker) add(term int32, start, end, pos, stop int) int {
	m.matches = append(m.matches, match{term, start, end, pos})
	last := len(m.matches) - 1
	if u := m.unit[term]; u >= 0 {
		m.occur(occ{u, start, end, last, last})
	}
	nbare := int32(m.units - len(m.phrases))
	for p, ph := range m.phrases {
		if ph[len(ph)-1] != term || last < len(ph)-1 {
			continue
		}
		f := last - (len(ph) - 1)
		ok := true
		for j, id := range ph {
			if mt := m.matches[f+j]; mt.term != id || mt.pos != pos-(len(ph)-1-j) {
				ok = false
				break
			}
		}
		if ok {
			m.occur(occ{nbare + int32(p), m.matches[f].start, end, f, last})
		}
	}
	if !m.settled && m.found >= m.reachable && m.distinct(end-m.size, end) >= m.reachable {
		m.settled = true
		return min(stop, end+m.size)
	}
	return stop
}

// reach counts the units whose terms held says the text holds.
func (m *Maker) reach(held func(string) bool) int {
	has := make([]bool, len(m.unit))
	for t, id := range m.ids {
		has[id] = held(t)
	}
	n := 0
	for id, u := range m.unit {
		if u >= 0 && has[id] {
			n++
		}
	}
	for _, ph := range m.phrases {
		all := true
		for _, id := range ph {
			all = all && has[id]
		}
		if all {
			n++
		}
	}
	return n
}

// occur appends o, keeping occs in order of their starts (a phrase
// occurrence starts before the bare terms its last word completes).
func (m *Maker) occur(o occ) {
	i := len(m.occs)
	m.occs = append(m.occs, o)
	for i > 0 && m.occs[i-1].start > o.start {
		m.occs[i] = m.occs[i-1]
		i--
	}
	m.occs[i] = o
	if !m.met[o.unit] {
		m.met[o.unit] = true
		m.found++
	}
}

// distinct counts the units with an occurrence inside [lo, hi).
func (m *Maker) distinct(lo, hi int) int {
	m.stamp++
	n := 0
	for i := len(m.occs) - 1; i >= 0 && m.occs[i].start >= lo; i-- {
		if o := m.occs[i]; o.end <= hi && m.seen[o.unit] != m.stamp {
			m.seen[o.unit] = m.stamp
			n++
		}
	}
	return n
}

// best returns the occurrences of the best window, occs[l:r]: for each
// occurrence as the window's first, the distinct units of those ending
// within size bytes of its start; the most wins, the earliest on ties.
func (m *Maker) best() (l, r int) {
	most := 0
	for i, o := range m.occs {
		m.stamp++
		n, j := 0, i
		for ; j < len(m.occs) && m.occs[j].start < o.start+m.size; j++ {
			if p := m.occs[j]; p.end <= o.start+m.size && m.seen[p.unit] != m.stamp {
				m.seen[p.unit] = m.stamp
				n++
			}
		}
		if n > most {
			most, l, r = n, i, j
			if n == m.units {
				break
			}
		}
	}
	if most == 0 && len(m.occs) > 0 {
		return 0, 1 // an occurrence longer than a window
	}
	return l, r
}

// inWindow reports whether o lies within size bytes of from.
func (m *Maker) inWindow(o occ, from int) bool {
	return o.end <= from+m.size
}

// cut returns the part of t to show around [from, to): about size bytes,
// with a third of the room left over before from, ending after whole
// words (in text without spaces nearby, such as Chinese, at a character
// boundary). It never cuts [from, to). cutBefore and cutAfter report
// whether words of t lie outside [start, end).
func (m *Maker) cut(t string, from, to int) (start, end int, cutBefore, cutAfter bool) {
	lo, hi := 0, len(t)
	for lo < hi && isSpace(t[lo]) {
		lo++
	}
	for hi > lo && isSpace(t[hi-1]) {
		hi--
	}
	from = min(max(from, lo), hi)
	to = min(max(to, from), hi)
	start = max(lo, from-max(0, m.size-(to-from))/3)
	end = min(hi, max(start+m.size, to))
	start = max(lo, min(start, end-m.size))
	if start > lo && !isSpace(t[start-1]) {
		k := start
		for k < from && !isSpace(t[k]) {
			k++
		}
		switch {
		case k < from:
			start = k
		case start < len(t) && t[start] < utf8.RuneSelf:
			start = from // inside an ASCII word: start with the match
		default:
			for start < from && !utf8.RuneStart(t[start]) {
				start++
			}
		}
	}
	for start < from && isSpace(t[start]) {
		start++
	}
	if end < hi && !isSpace(t[end]) {
		k := end
		for k > to && !isSpace(t[k-1]) {
			k--
		}
		switch {
		case k > to:
			end = k
		case t[end-1] < utf8.RuneSelf:
			end = to
		default:
			for end > to && !utf8.RuneStart(t[end]) {
				end--
			}
		}
	}
	for end > to && isSpace(t[end-1]) {
		end--
	}
	return start, end, start > lo, end < hi
}

// render copies t[start:end] with whitespace runs as one space, invalid
// UTF-8 as U+FFFD and Ellipsis where the text goes on, marking the words
// of the window occs[l:r].
func (m *Maker) render(t string, start, end int, cutBefore, cutAfter bool, l, r int) Snippet {
	var words [][2]int
	for _, o := range m.occs[l:r] {
		if !m.inWindow(o, m.occs[l].start) {
			continue
		}
		for _, w := range m.matches[o.first : o.last+1] {
			if start <= w.start && w.end <= end {
				words = append(words, [2]int{w.start, w.end})
			}
		}
	}
	slices.SortFunc(words, func(a, b [2]int) int { return a[0] - b[0] })
	words = slices.Compact(words)

	var b strings.Builder
	b.Grow(end - start + 2*len(Ellipsis))
	var hl [][2]int
	if cutBefore {
		b.WriteString(Ellipsis)
	}
	space := false
	for i := start; i < end; {
		c := t[i]
		if isSpace(c) {
			space, i = true, i+1
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if len(words) > 0 && words[0][0] == i {
			w := words[0]
			hl = append(hl, [2]int{b.Len(), b.Len() + w[1] - w[0]})
			b.WriteString(t[w[0]:w[1]]) // a segment: valid UTF-8, no space
			i, words = w[1], words[1:]
			continue
		}
		if c < utf8.RuneSelf {
			b.WriteByte(c)
			i++
			continue
		}
		ch, n := utf8.DecodeRuneInString(t[i:end])
		if ch == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(t[i : i+n])
		}
		i += n
	}
	if cutAfter {
		b.WriteString(Ellipsis)
	}
	return Snippet{Text: b.String(), Highlights: hl}
}

func isSpace(c byte) bool {
	return c == ' ' || '\t' <= c && c <= '\r'
}
