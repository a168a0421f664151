package intersect

import "math/bits"

// BucketLoad is the mean number of docids a hash bucket is sized to hold.
const BucketLoad = 8

// HashTable is a list cut into buckets by the high bits of its docids:
// bucket b holds the list's docids d with d>>shift == b, a sorted run of
// the list.
type HashTable struct {
	list   []uint32
	shift  uint
	starts []uint32 // bucket b is list[starts[b]:starts[b+1]]
}

// NewHashTable builds the bucketed table of a sorted list (the list is
// kept, not copied).
func NewHashTable(list []uint32) *HashTable {
	t := &HashTable{list: list}
	if len(list) == 0 {
		t.starts = []uint32{0, 0}
		return t
	}
	maxDoc := list[len(list)-1]
	// Universe bits minus the bits of the bucket count: about BucketLoad
	// docids per bucket.
	buckets := max(1, len(list)/BucketLoad)
	t.shift = uint(max(0, bits.Len32(maxDoc)-bits.Len(uint(buckets))))
	nb := int(maxDoc>>t.shift) + 1
	t.starts = make([]uint32, nb+1)
	for _, d := range list {
		t.starts[(d>>t.shift)+1]++
	}
	for b := 1; b <= nb; b++ {
		t.starts[b] += t.starts[b-1]
	}
	return t
}

// Layout returns what a device copy of the table needs: its list, the
// shift that maps a docid to its bucket, and the bucket starts (bucket b
// is list[starts[b]:starts[b+1]]). The slices are the table's own.
func (t *HashTable) Layout() (list []uint32, shift uint, starts []uint32) {
	return t.list, t.shift, t.starts
}

// Contains reports whether the table's list holds x.
func (t *HashTable) Contains(x uint32) bool {
	b := int(x >> t.shift)
	if b+1 >= len(t.starts) {
		return false
	}
	lo, hi := int(t.starts[b]), int(t.starts[b+1])
	for ; lo < hi; lo++ {
		if y := t.list[lo]; y >= x {
			return y == x
		}
	}
	return false
}

// Hash appends to dst the elements of short held by every table.
func Hash(dst, short []uint32, tables ...*HashTable) []uint32 {
next:
	for _, x := range short {
		for _, t := range tables {
			if !t.Contains(x) {
				continue next
			}
		}
		dst = append(dst, x)
	}
	return dst
}
