package intersect

// Bitset is a bit per docid of [0, universe): bit d is set when the list
// holds d.
type Bitset struct {
	words []uint64
}

// NewBitset builds the bitset of a sorted list; its universe ends after
// the list's largest docid.
func NewBitset(list []uint32) *Bitset {
	var n int
	if len(list) > 0 {
		n = int(list[len(list)-1])/64 + 1
	}
	s := &Bitset{words: make([]uint64, n)}
	for _, d := range list {
		s.words[d/64] |= 1 << (d % 64)
	}
	return s
}

// Words returns the bitset's words: docid d is bit d%64 of word d/64. The
// slice is the set's own.
func (s *Bitset) Words() []uint64 { return s.words }

// Contains reports whether bit x is set.
func (s *Bitset) Contains(x uint32) bool {
	w := int(x / 64)
	return w < len(s.words) && s.words[w]&(1<<(x%64)) != 0
}

// Bitmap appends to dst the elements of short held by every bitset.
func Bitmap(dst, short []uint32, sets ...*Bitset) []uint32 {
next:
	for _, x := range short {
		for _, s := range sets {
			if !s.Contains(x) {
				continue next
			}
		}
		dst = append(dst, x)
	}
	return dst
}
