package intersect

import "sort"

// SVS appends the intersection of lists to dst, set versus set: the
// shortest list gives the candidates, and each longer list, shortest first,
// keeps those it holds, found by binary search over the rest of the list
// from the last position found.
func SVS(dst []uint32, lists ...[]uint32) []uint32 {
	if len(lists) == 0 {
		return dst
	}
	ls := byLength(lists)
	start := len(dst)
	dst = append(dst, ls[0]...)
	for _, l := range ls[1:] {
		cand := dst[start:]
		n, j := 0, 0
		for _, x := range cand {
			j = lowerBound(l, j, len(l), x)
			if j == len(l) {
				break
			}
			if l[j] == x {
				cand[n] = x
				n++
				j++
			}
		}
		dst = dst[:start+n]
		if n == 0 {
			break
		}
	}
	return dst
}

// byLength returns the lists ordered by length, shortest first.
func byLength(lists [][]uint32) [][]uint32 {
	ls := append([][]uint32(nil), lists...)
	sort.SliceStable(ls, func(i, j int) bool { return len(ls[i]) < len(ls[j]) })
	return ls
}
