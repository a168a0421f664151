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

// Locate returns the tokens from through to of a document around which
// its snippet lies: the window of at most Span tokens holding the most
// distinct units (ties: the earliest). positions[i] holds the token
// positions of terms[i] in the document, ascending; terms the Maker does
// not know are ignored. ok is false when no unit occurs.
func (m *Maker) Locate(terms []string, positions [][]uint32) (from, to uint32, ok bool) {
	byID := m.byID[:0]
	for range m.unit {
		byID = append(byID, nil)
	}
	for i, t := range terms {
		if id, known := m.ids[t]; known && i < len(positions) {
			byID[id] = positions[i]
		}
	}
	// Each unit's occurrences, ascending: a bare term's positions, a
	// phrase's where its terms follow each other.
	lists := m.lists[:0]
	for id, u := range m.unit {
		if u >= 0 && len(byID[id]) > 0 {
			lists = append(lists, unitList{unit: u, starts: byID[id]})
		}
	}
	nbare := int32(m.units - len(m.phrases))
	phrased := m.phrased[:0]
	for k, ids := range m.phrases {
		at := len(phrased)
	next:
		for _, p := range byID[ids[0]] {
			for j, id := range ids[1:] {
				if _, found := slices.BinarySearch(byID[id], p+uint32(j)+1); !found {
					continue next
				}
			}
			phrased = append(phrased, p)
		}
		if len(phrased) > at {
			lists = append(lists, unitList{unit: nbare + int32(k), starts: phrased[at:], length: uint32(len(ids)) - 1})
		}
	}
	m.byID, m.lists, m.phrased = byID, lists, phrased
	if len(lists) == 0 {
		return 0, 0, false
	}
	// The shortest lists, up to maxLocated occurrences (one list at
	// least), are merged; each longer one, a unit the document holds so
	// often that most windows do, is only checked for an occurrence in
	// the windows the merged ones give, by binary search, where it could
	// make the window the best so far.
	slices.SortStableFunc(lists, func(a, b unitList) int { return len(a.starts) - len(b.starts) })
	merged, total := 1, len(lists[0].starts)
	for merged < len(lists) && total+len(lists[merged].starts) <= maxLocated {
		total += len(lists[merged].starts)
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
	for _, u := range lists {
		heads = append(heads, u.starts[0])
	}
	// alive counts the merged units a later window could still hold: a
	// unit with occurrences yet to merge, or one in the current window.
	// Once they and every checked unit together are no more than the
	// best window's, no later window beats it and the search ends (on
	// 55% of RFC hits, which would merge their lists to the end).
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
		u.starts = u.starts[1:]
		heads[k] = noStart
		if len(u.starts) > 0 {
			heads[k] = u.starts[0]
		}
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
			d += holding(checked, occs[l].start, span)
		}
		if d > best {
			best, from, to = d, occs[l].start, o.end
		}
		if alive+len(checked) <= best {
			break
		}
	}
	m.located, m.count, m.heads, m.done = occs, count, heads, done
	return from, to, true
}

// holding counts the lists with an occurrence starting in [from,
// from+span). It drops each list's starts before from: Locate asks
// with from never decreasing, so that a dense list is walked once, by
// galloping, rather than searched whole at every occurrence merged.
func holding(lists []unitList, from, span uint32) int {
	n := 0
	for j := range lists {
		s := lists[j].starts
		if len(s) > 0 && s[0] < from {
			s = s[intersect.Gallop(s, 0, from):]
			lists[j].starts = s
		}
		if len(s) > 0 && s[0]-from < span {
			n++
		}
	}
	return n
}

// noStart marks a merged list's head: no token is numbered as high, since
// positions lie below a document's length, a uint32.
const noStart = math.MaxUint32

// unitList is a unit's occurrences still to merge: their first tokens,
// ascending, each spanning length more.
type unitList struct {
	unit   int32
	starts []uint32
	length uint32
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
	ids := make([]int32, len(terms))
	for i, t := range terms {
		ids[i] = -1
		if id, ok := m.ids[t]; ok {
			ids[i] = id
		}
	}
	return ids
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
