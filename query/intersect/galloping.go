package intersect

// Galloping appends the intersection of a and b to dst: each element of
// the shorter list is found in the longer one by galloping from the last
// position found.
func Galloping(dst, a, b []uint32) []uint32 {
	if len(a) > len(b) {
		a, b = b, a
	}
	j := 0
	for _, x := range a {
		j = Gallop(b, j, x)
		if j == len(b) {
			break
		}
		if b[j] == x {
			dst = append(dst, x)
			j++
		}
	}
	return dst
}

// Gallop returns the first index i >= from with list[i] >= x, or len(list):
// it doubles a step until it passes x, then binary searches the last step.
func Gallop(list []uint32, from int, x uint32) int {
	if from >= len(list) || list[from] >= x {
		return from
	}
	lo, step := from, 1 // list[lo] < x
	hi := lo + step
	for hi < len(list) && list[hi] < x {
		lo = hi
		step <<= 1
		hi = lo + step
	}
	return lowerBound(list, lo+1, min(hi, len(list)), x)
}

// lowerBound returns the first index i in [lo, hi) with list[i] >= x, or
// hi.
func lowerBound(list []uint32, lo, hi int, x uint32) int {
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if list[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// GallopingAll appends the intersection of lists to dst, galloping the
// shortest list into the next shortest, the result into the next, and so
// on.
func GallopingAll(dst []uint32, lists ...[]uint32) []uint32 { return fold(dst, Galloping, lists) }
