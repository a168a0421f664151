package index

// Meet moves a and b forward, toward the first docid at or after a's that
// both lists hold, and returns a's docid: ok is true when b stands on it
// too. It stops early, ok false, where a leaves a block, so that a caller
// may check for cancellation; calling again goes on. Past the end of
// either list it returns NoMoreDocs, ok false. a must have moved (not a
// lazy cursor before its first move); b may be lazy.
//
// It is the leapfrog of a.NextGEQ and b.NextGEQ calls an intersection
// makes, fused into one loop over the two decoded blocks: a steps one
// posting at a time and b is counted forward eight docids at a time
// without a branch, so the only chain of dependent loads runs through b's
// position. Each leapfrog step instead ends in a call whose result a
// branch compares, mispredicted about every other time.
func Meet(a, b *Cursor) (uint32, bool) {
	if a.del != nil || b.del != nil {
		// Deleted documents: NextGEQ skips them.
		d := a.cur
		if d == NoMoreDocs {
			return d, false
		}
		if x := b.NextGEQ(d); x != d {
			return a.NextGEQ(x), false
		}
		return d, true
	}
	x := a.cur
	if x == NoMoreDocs {
		return x, false
	}
	if int64(x) > b.last {
		if y := b.nextGEQBlock(x); y != x {
			return a.nextGEQ(y), false
		}
		return x, true
	}
	A, i := a.docs, a.pos
	B, j := b.docs, b.pos
	for {
		// b's block holds a docid >= x: the scan ends inside it.
		for j+8 <= len(B) {
			w := B[j : j+8 : j+8]
			t := uint64(x)
			// (y - t) >> 63 is 1 exactly when y < t.
			k := (uint64(w[0])-t)>>63 + (uint64(w[1])-t)>>63 + (uint64(w[2])-t)>>63 + (uint64(w[3])-t)>>63 +
				(uint64(w[4])-t)>>63 + (uint64(w[5])-t)>>63 + (uint64(w[6])-t)>>63 + (uint64(w[7])-t)>>63
			j += int(k)
			if k < 8 {
				goto scanned
			}
		}
		for B[j] < x {
			j++
		}
	scanned:
		y := B[j]
		if y == x {
			a.pos, a.cur = i, x
			b.pos, b.cur = j, y
			return x, true
		}
		// y > x: a moves to its first docid >= y.
		if int64(y) > a.last {
			i = len(A)
			break
		}
		for i+8 <= len(A) {
			w := A[i : i+8 : i+8]
			t := uint64(y)
			k := (uint64(w[0])-t)>>63 + (uint64(w[1])-t)>>63 + (uint64(w[2])-t)>>63 + (uint64(w[3])-t)>>63 +
				(uint64(w[4])-t)>>63 + (uint64(w[5])-t)>>63 + (uint64(w[6])-t)>>63 + (uint64(w[7])-t)>>63
			i += int(k)
			if k < 8 {
				goto moved
			}
		}
		for A[i] < y {
			i++
		}
	moved:
		if x = A[i]; int64(x) > b.last {
			break
		}
	}
	// a's block ends before y, or b's before a's next docid: leave the
	// blocks through NextGEQ and let the caller come back.
	b.pos, b.cur = j, B[j]
	i = min(i, len(A)-1)
	a.pos, a.cur = i, A[i]
	d := a.nextGEQ(b.cur)
	if d == NoMoreDocs {
		return d, false
	}
	return d, b.nextGEQ(d) == d
}
