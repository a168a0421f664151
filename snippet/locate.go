package snippet

import (
	"math"
	"slices"
	"unsafe"

	"github.com/gpusearch/gpusearch/query/intersect"
)

// Locating a snippet by positions. An index with positions knows where
// each query term lies in a hit's text, as token ordinals; the window of
// tokens holding the most distinct units can be found from them alone,
// and only the text around it read: scanned (MakeIn), or with its words
// already known to be query terms (MakeMatched), as a word-coded store
// gives them. On the RFCs, whose documents hold 54 KB of text, a snippet
// then reads a few hundred bytes instead of the whole text.

// maxLocated bounds the occurrences Locate merges, and so its time: the
// shortest lists are merged up to it, and a unit occurring more often
// is only looked for, by binary search, in the windows the merged ones
// give.
const maxLocated = 128

// bytesPerToken is the room a token is given when a snippet's size in
// bytes is turned into a span of tokens: English text runs 6 to 8 bytes
// a token with its space; a span too wide only reads a little more.
const bytesPerToken = 5

// Span returns how many tokens Locate's window spans for the Maker's
// size.
func (m *Maker) Span() uint32 { return uint32(max(8, m.size/bytesPerToken)) }

// Positions gives a term's positions in a document, ascending, a batch
// at a time, so that Locate decodes no more of them than it reads.
type Positions interface {
	// Len returns how many positions there are in all, given or not.
	Len() int
	// Next returns the next batch, empty once all are given; it is valid
	// until the next call.
	Next() ([]uint32, error)
}

// Locate is LocateFrom with every term's positions at hand: positions[i]
// holds those of terms[i], ascending.
func (m *Maker) Locate(terms []string, positions [][]uint32) (from, to uint32, ok bool) {
	m.wholes = slices.Grow(m.wholes[:0], len(positions))[:len(positions)]
	m.sources = slices.Grow(m.sources[:0], len(positions))[:len(positions)]
	for i, p := range positions {
		m.wholes[i] = wholeList{p}
		m.sources[i] = &m.wholes[i]
	}
	m.termIDs = m.appendTermIDs(m.termIDs[:0], terms)
	from, to, ok, _ = m.LocateFrom(m.termIDs, m.sources) // a whole list never fails
	return from, to, ok
}

// wholeList is Positions of a list at hand, given in one batch.
type wholeList struct{ p []uint32 }

// Len returns the list's length.
func (w *wholeList) Len() int { return len(w.p) }

// Next returns the whole list, then nothing.
func (w *wholeList) Next() ([]uint32, error) {
	p := w.p
	w.p = nil
	return p, nil
}

// LocateFrom returns the tokens from through to of a document around
// which its snippet lies: the window of at most Span tokens holding the
// most distinct units (ties: the earliest). positions[i] gives the token
// positions in the document (nil: none) of the term whose Maker id
// (TermIDs) is ids[i]; ids of -1, terms the Maker does not look for, are
// ignored. ok is false when no unit occurs; err is the first error of a
// Positions' Next.
//
// A bare term's positions are read only as far as the search goes: the
// merged lists up to where it stops, the checked ones up to the last
// window it tries. A phrase's terms are read whole, to find where they
// follow each other.
func (m *Maker) LocateFrom(ids []int32, positions []Positions) (from, to uint32, ok bool, err error) {
	byID := m.byID[:0]
	for range m.unit {
		byID = append(byID, nil)
	}
	for i, id := range ids {
		if id >= 0 && int(id) < len(byID) && i < len(positions) {
			byID[id] = positions[i]
		}
	}
	// Each unit's occurrences, ascending: a bare term's positions, a
	// phrase's where its terms follow each other.
	lists := m.lists[:0]
	for id, u := range m.unit {
		if p := byID[id]; u >= 0 && p != nil && p.Len() > 0 {
			lists = append(lists, unitList{unit: u, src: p, n: p.Len()})
		}
	}
	if len(m.phrases) > 0 {
		words, err := m.phraseWords(byID)
		if err != nil {
			return 0, 0, false, err
		}
		nbare := int32(m.units - len(m.phrases))
		phrased := m.phrased[:0]
		for k, ids := range m.phrases {
			at := len(phrased)
		next:
			for _, p := range words[ids[0]] {
				for j, id := range ids[1:] {
					if _, found := slices.BinarySearch(words[id], p+uint32(j)+1); !found {
						continue next
					}
				}
				phrased = append(phrased, p)
			}
			if len(phrased) > at {
				lists = append(lists, unitList{unit: nbare + int32(k), starts: phrased[at:], n: len(phrased) - at, length: uint32(len(ids)) - 1})
			}
		}
		m.phrased = phrased
	}
	m.byID, m.lists = byID, lists
	if len(lists) == 0 {
		return 0, 0, false, nil
	}
	// The shortest lists, up to maxLocated occurrences (one list at
	// least), are merged; each longer one, a unit the document holds so
	// often that most windows do, is only checked for an occurrence in
	// the windows the merged ones give, by binary search, where it could
	// make the window the best so far.
	slices.SortStableFunc(lists, func(a, b unitList) int { return a.n - b.n })
	merged, total := 1, lists[0].n
	for merged < len(lists) && total+lists[merged].n <= maxLocated {
		total += lists[merged].n
		merged++
	}
	checked := lists[merged:]
	lists = lists[:merged]
	// Merge them by start (a handful of lists: a linear pick beats a
	// heap) while sliding a window over the merged occurrences, counting
	// the distinct units of those that end inside it; a window holding
	// every unit that occurs ends the search, since no later one beats it,
	// and so do maxLocated occurrences, as the whole-text scan stops at
	// MaxScan bytes.
	present := len(lists) + len(checked)
	count := m.count[:0]
	for range m.units {
		count = append(count, 0)
	}
	// heads[i] is lists[i]'s next start, or noStart once it is merged:
	// the pick reads one small array rather than each list's slice.
	heads := m.heads[:0]
	for i := range lists {
		if err := lists[i].fill(); err != nil {
			return 0, 0, false, err
		}
		heads = append(heads, lists[i].head())
	}
	// alive counts the merged units a later window could still hold: a
	// unit with occurrences yet to merge, or one in the current window.
	// Once they and every checked unit together are no more than the
	// best window's, no later window beats it: the search ends there,
	// and reads no more of the checked lists.
	done := m.done[:0]
	for range m.units {
		done = append(done, false)
	}
	alive := len(lists)
	occs := m.located[:0]
	span := m.Span()
	best, distinct, l := 0, 0, 0
	for best < present && len(occs) < maxLocated {
		k, p := -1, uint32(noStart)
		for i, h := range heads {
			if h < p {
				k, p = i, h
			}
		}
		if k < 0 {
			break
		}
		u := &lists[k]
		if u.starts = u.starts[1:]; len(u.starts) == 0 {
			if err := u.fill(); err != nil {
				return 0, 0, false, err
			}
		}
		heads[k] = u.head()
		o := located{p, p + u.length, u.unit}
		occs = append(occs, o)
		for l < len(occs)-1 && occs[l].start+span <= o.end {
			if count[occs[l].unit]--; count[occs[l].unit] == 0 {
				distinct--
				if done[occs[l].unit] {
					alive--
				}
			}
			l++
		}
		if count[o.unit]++; count[o.unit] == 1 {
			distinct++
		}
		if heads[k] == noStart {
			done[o.unit] = true
		}
		d := distinct
		if d+len(checked) > best {
			h, err := holding(checked, occs[l].start, span)
			if err != nil {
				return 0, 0, false, err
			}
			d += h
		}
		if d > best {
			best, from, to = d, occs[l].start, o.end
		}
		if alive+len(checked) <= best {
			break
		}
	}
	m.located, m.count, m.heads, m.done = occs, count, heads, done
	return from, to, true, nil
}

// phraseWords returns, by term id, the whole positions of the terms that
// occur only in phrases (nil for the others), read from byID into the
// Maker's memory.
func (m *Maker) phraseWords(byID []Positions) ([][]uint32, error) {
	words := slices.Grow(m.words[:0], len(byID))[:len(byID)]
	bounds := slices.Grow(m.wordBounds[:0], len(byID)+1)[:len(byID)+1]
	buf := m.wordBuf[:0]
	for id, p := range byID {
		bounds[id] = len(buf)
		if m.unit[id] >= 0 || p == nil {
			continue
		}
		for {
			b, err := p.Next()
			if err != nil {
				return nil, err
			}
			if len(b) == 0 {
				break
			}
			buf = append(buf, b...)
		}
	}
	bounds[len(byID)] = len(buf)
	for id := range words {
		words[id] = buf[bounds[id]:bounds[id+1]:bounds[id+1]]
	}
	m.words, m.wordBounds, m.wordBuf = words, bounds, buf
	return words, nil
}

// holding counts the lists with an occurrence starting in [from,
// from+span). It drops each list's starts before from: Locate asks
// with from never decreasing, so that a dense list is read once, as far
// as the windows go, and walked by galloping rather than searched whole
// at every occurrence merged.
func holding(lists []unitList, from, span uint32) (int, error) {
	n := 0
	for j := range lists {
		u := &lists[j]
		for len(u.starts) > 0 && u.starts[len(u.starts)-1] < from || len(u.starts) == 0 && u.src != nil {
			u.starts = nil
			if err := u.fill(); err != nil {
				return 0, err
			}
		}
		s := u.starts
		if len(s) > 0 && s[0] < from {
			s = s[intersect.Gallop(s, 0, from):]
			u.starts = s
		}
		if len(s) > 0 && s[0]-from < span {
			n++
		}
	}
	return n, nil
}

// noStart marks a merged list's head: no token is numbered as high, since
// positions lie below a document's length, a uint32.
const noStart = math.MaxUint32

// unitList is a unit's occurrences still to merge: their first tokens,
// ascending, each spanning length more; those in starts are read, the
// rest come from src.
type unitList struct {
	unit   int32
	starts []uint32
	src    Positions // nil once every occurrence is read
	n      int       // the occurrences in all
	length uint32
}

// fill reads the list's next batch into starts, which the caller has
// used up; none left, src becomes nil.
func (u *unitList) fill() error {
	if u.src == nil {
		return nil
	}
	s, err := u.src.Next()
	if err != nil {
		return err
	}
	if u.starts = s; len(s) == 0 {
		u.src = nil
	}
	return nil
}

// head is the list's next start, or noStart when none is left.
func (u *unitList) head() uint32 {
	if len(u.starts) == 0 {
		return noStart
	}
	return u.starts[0]
}

// located is an occurrence of a unit, by token.
type located struct {
	start, end uint32
	unit       int32
}

// Size returns the snippet length in bytes the Maker cuts.
func (m *Maker) Size() int { return m.size }

// Matched is a word of a stretch of text known to be a query term:
// text[Start:End], Term its Maker id (TermIDs), Pos its ordinal among
// the document's tokens.
type Matched struct {
	Start, End int
	Term       int32
	Pos        uint32
}

// TermIDs returns the Maker's id of each of terms, -1 for a term it does
// not look for.
func (m *Maker) TermIDs(terms []string) []int32 {
	return m.appendTermIDs(make([]int32, 0, len(terms)), terms)
}

// appendTermIDs appends the Maker's id of each of terms to dst
// (TermIDs).
func (m *Maker) appendTermIDs(dst []int32, terms []string) []int32 {
	for _, t := range terms {
		id, ok := m.ids[t]
		if !ok {
			id = -1
		}
		dst = append(dst, id)
	}
	return dst
}

// MakeMatched is MakeIn over part of a document's text whose words that
// are query terms are known, in order, as matched: the text is neither
// scanned nor analyzed. With every such word of the part given, the
// snippet is MakeIn's. part is only read during the call (the snippet is
// a copy), so that a caller decodes windows into one buffer.
func (m *Maker) MakeMatched(part []byte, matched []Matched, atStart, atEnd bool) Snippet {
	m.reset()
	stop := len(part)
	for _, w := range matched {
		if w.Start >= stop || w.Term < 0 || int(w.Term) >= len(m.unit) || w.End > len(part) || w.Start >= w.End {
			continue
		}
		stop = m.add(w.Term, w.Start, w.End, int(w.Pos), stop)
	}
	// Not a copy: finish reads the text and renders the snippet anew.
	return m.finish(unsafe.String(unsafe.SliceData(part), len(part)), atStart, atEnd)
}
