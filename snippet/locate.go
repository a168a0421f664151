package snippet

import (
	"cmp"
	"slices"
)

// Locating a snippet by positions. An index with positions knows where
// each query term lies in a hit's text, as token ordinals; the window of
// tokens holding the most distinct units can be found from them alone,
// and only the text around it read and scanned (MakeIn): on the RFCs,
// whose documents hold 54 KB of text, a snippet then reads and scans a
// kilobyte or two instead of the whole text.

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
	byID := make([][]uint32, len(m.unit))
	for i, t := range terms {
		if id, known := m.ids[t]; known && i < len(positions) {
			byID[id] = positions[i]
		}
	}
	type occurrence struct {
		start, end uint32
		unit       int32
	}
	var occs []occurrence
	for id, u := range m.unit {
		if u < 0 {
			continue
		}
		for _, p := range byID[id] {
			occs = append(occs, occurrence{p, p, u})
		}
	}
	nbare := int32(m.units - len(m.phrases))
	for k, ids := range m.phrases {
	next:
		for _, p := range byID[ids[0]] {
			for j, id := range ids[1:] {
				if _, found := slices.BinarySearch(byID[id], p+uint32(j)+1); !found {
					continue next
				}
			}
			occs = append(occs, occurrence{p, p + uint32(len(ids)) - 1, nbare + int32(k)})
		}
	}
	if len(occs) == 0 {
		return 0, 0, false
	}
	slices.SortFunc(occs, func(a, b occurrence) int { return cmp.Compare(a.start, b.start) })
	// Slide a window over the occurrences by start, counting distinct
	// units among those that end inside it.
	span := m.Span()
	count := make([]int, m.units)
	best, distinct, l := 0, 0, 0
	for r, o := range occs {
		for l < r && occs[l].start+span <= o.end {
			if count[occs[l].unit]--; count[occs[l].unit] == 0 {
				distinct--
			}
			l++
		}
		if count[o.unit]++; count[o.unit] == 1 {
			distinct++
		}
		if distinct > best {
			best, from, to = distinct, occs[l].start, o.end
		}
	}
	return from, to, true
}
