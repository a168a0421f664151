package bench

import (
	"math/rand/v2"
	"slices"
)

// Uniform returns n distinct integers drawn uniformly from [0, max),
// sorted: Anh and Moffat's Uniform model.
func Uniform(r *rand.Rand, n int, max uint32) []uint32 {
	if uint64(n) > uint64(max) {
		panic("bench: more distinct values than the range holds")
	}
	if n > 4096 {
		return bitsetUniform(r, n, max)
	}
	seen := make(map[uint32]struct{}, n)
	out := make([]uint32, 0, n)
	for len(out) < n {
		v := r.Uint32N(max)
		if _, dup := seen[v]; !dup {
			seen[v] = struct{}{}
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// bitsetUniform marks n distinct values in a bitset (rejecting repeats,
// or marking the complement when more than half the range is wanted) and
// reads them back in order.
func bitsetUniform(r *rand.Rand, n int, max uint32) []uint32 {
	bits := make([]uint64, (uint64(max)+63)/64)
	want, invert := n, false
	if uint64(n)*2 > uint64(max) {
		want, invert = int(max)-n, true
	}
	for marked := 0; marked < want; {
		v := r.Uint32N(max)
		if bits[v/64]&(1<<(v%64)) == 0 {
			bits[v/64] |= 1 << (v % 64)
			marked++
		}
	}
	out := make([]uint32, 0, n)
	for v := uint32(0); v < max; v++ {
		if (bits[v/64]&(1<<(v%64)) != 0) != invert {
			out = append(out, v)
		}
	}
	return out
}

// Clustered returns n distinct integers from [0, max), sorted, that come
// in clusters: Anh and Moffat's Clustered model. The range is split at a
// random point; each side gets half the values and is filled either
// uniformly or, recursively, in clusters, so dense runs alternate with
// sparse stretches.
func Clustered(r *rand.Rand, n int, max uint32) []uint32 {
	out := make([]uint32, 0, n)
	clustered(r, &out, n, 0, max)
	return out
}

func clustered(r *rand.Rand, out *[]uint32, n int, lo, hi uint32) {
	span := hi - lo
	switch {
	case n == 0:
		return
	case uint64(n) == uint64(span):
		for v := lo; v < hi; v++ {
			*out = append(*out, v)
		}
		return
	case n <= 16:
		for _, v := range Uniform(r, n, span) {
			*out = append(*out, lo+v)
		}
		return
	}
	left := n / 2
	right := n - left
	// The cut leaves room for both halves' values.
	cut := lo + uint32(left) + r.Uint32N(span-uint32(n)+1)
	fill := func(m int, a, b uint32, cluster bool) {
		if cluster {
			clustered(r, out, m, a, b)
			return
		}
		for _, v := range Uniform(r, m, b-a) {
			*out = append(*out, a+v)
		}
	}
	switch p := r.Float64(); {
	case p < 0.25:
		fill(left, lo, cut, false)
		fill(right, cut, hi, true)
	case p < 0.5:
		fill(left, lo, cut, true)
		fill(right, cut, hi, false)
	default:
		fill(left, lo, cut, true)
		fill(right, cut, hi, true)
	}
}

// Gaps turns sorted docids into d-gaps (the first relative to 0).
func Gaps(docids []uint32) []uint32 {
	out := make([]uint32, len(docids))
	prev := uint32(0)
	for i, d := range docids {
		out[i] = d - prev
		prev = d
	}
	return out
}
