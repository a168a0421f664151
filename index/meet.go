package index

// Meet moves a and b forward, toward the first docid at or after a's that
// both lists hold, and returns a's docid: ok is true when b stands on it
// too. It stops early, ok false, where a leaves a block, so that a caller
// may check for cancellation; calling again goes on. Past the end of
// either list it returns NoMoreDocs, ok false. a must have moved (not a
// lazy cursor before its first move); b may be lazy.
//
// It is the leapfrog of a.NextGEQ and b.NextGEQ calls an intersection
// makes, fused into one loop over the two decoded blocks, where each
// leapfrog step would end in a call whose result a branch compares,
// mispredicted about every other time. Where the CPU has AVX2, windows of
// eight docids of each block are compared all pairs at once and the one
// ending lower moves on (windows); the rest of a block, and every block
// elsewhere, is met by counting docids eight at a time without a branch.
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
		// Eight docids of each list at a time, all pairs at once, while
		// both blocks hold eight more (AVX2).
		ni, nj, lane := windows(A, B, i, j)
		if lane >= 0 {
			i, x = ni+lane, A[ni+lane]
			for j = nj; B[j] < x; j++ {
			}
			a.pos, a.cur = i, x
			b.pos, b.cur = j, x
			return x, true
		}
		if ni != i || nj != j {
			if i, j = ni, nj; i == len(A) || j == len(B) {
				break
			}
			if x = A[i]; int64(x) > b.last {
				break
			}
		}
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
	// a's block is done, or b's ends before a's docid: leave the blocks
	// through NextGEQ and let the caller come back.
	j = min(j, len(B)-1)
	b.pos, b.cur = j, B[j]
	target := b.cur
	if i == len(A) {
		i, target = len(A)-1, max(target, A[len(A)-1]+1)
	}
	a.pos, a.cur = i, A[i]
	d := a.nextGEQ(target)
	if d == NoMoreDocs {
		return d, false
	}
	return d, b.nextGEQ(d) == d
}
