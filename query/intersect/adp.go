package intersect

// ADP appends the intersection of lists to dst with the adaptive algorithm
// of Demaine, Lopez-Ortiz and Munro: an eliminator, first taken from the
// shortest list, is galloped for in each list in turn. When every list
// holds it, it is output and the shortest list's next element becomes the
// eliminator; when a list overshoots it, the element that list stands on
// becomes the eliminator and the round starts again from that list.
func ADP(dst []uint32, lists ...[]uint32) []uint32 {
	k := len(lists)
	if k == 0 {
		return dst
	}
	ls := byLength(lists)
	if len(ls[0]) == 0 {
		return dst
	}
	pos := make([]int, k)
	e := ls[0][0]
	held := 1 // lists known to hold e, the one it came from included
	i := 1 % k
	for {
		if held == k {
			// Every list stands on e, the shortest included.
			dst = append(dst, e)
			pos[0]++
			if pos[0] == len(ls[0]) {
				return dst
			}
			e, held, i = ls[0][pos[0]], 1, 1%k
			continue
		}
		p := Gallop(ls[i], pos[i], e)
		pos[i] = p
		if p == len(ls[i]) {
			return dst
		}
		if ls[i][p] == e {
			held++
		} else {
			e, held = ls[i][p], 1
		}
		i = (i + 1) % k
	}
}
