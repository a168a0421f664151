package intersect

// Merge appends the intersection of a and b to dst by a linear merge.
func Merge(dst, a, b []uint32) []uint32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		switch {
		case x < y:
			i++
		case x > y:
			j++
		default:
			dst = append(dst, x)
			i++
			j++
		}
	}
	return dst
}

// MergeAll appends the intersection of lists to dst, merging the shortest
// list with the next shortest, the result with the next, and so on.
func MergeAll(dst []uint32, lists ...[]uint32) []uint32 { return fold(dst, Merge, lists) }

// fold intersects lists pairwise with pair, shortest first.
func fold(dst []uint32, pair func(dst, a, b []uint32) []uint32, lists [][]uint32) []uint32 {
	if len(lists) == 0 {
		return dst
	}
	ls := byLength(lists)
	acc := ls[0]
	var bufs [2][]uint32
	for i, l := range ls[1:] {
		bufs[i%2] = pair(bufs[i%2][:0], acc, l)
		acc = bufs[i%2]
	}
	return append(dst, acc...)
}
