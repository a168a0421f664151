package gen

import (
	"errors"
	"math"
)

// spectrum is the rank-frequency curve of a model: the share f(r) of all
// tokens that belong to the term of rank r (r >= 1), with sum f = 1.
//
//	f(r) = c * r^-s                   r <= r0 (the head)
//	f(r) = c * r0^(s2-s) * r^-s2       r >  r0 (the tail), s2 = 1/beta
//
// The tail exponent follows from Heaps' law: a power-law tail with exponent
// s2 makes the number of terms seen in T tokens grow as T^(1/s2). The knee
// r0 is solved for so that the expected vocabulary of the collection being
// generated is K * T^beta.
type spectrum struct {
	s, s2 float64
	r0    float64
	a     float64 // r0^(s2-s): the tail is a * r^-s2
	c     float64
}

// g is the unnormalised curve.
func (sp spectrum) g(r float64) float64 {
	if r <= sp.r0 {
		return math.Pow(r, -sp.s)
	}
	return sp.a * math.Pow(r, -sp.s2)
}

// f is the token share of rank r.
func (sp spectrum) f(r float64) float64 { return sp.c * sp.g(r) }

// exactRanks is how many leading ranks the sums below add one by one;
// past them the curve is smooth enough to integrate.
const exactRanks = 1024

// rankSum returns sum_{r >= from} h(r) for a function that falls like
// a * r^-s2 for large r: exactly up to exactRanks, then by Simpson's rule
// over ln r (midpoint-corrected), then analytically past 1e15.
func rankSum(h func(r float64) float64, from float64, a, s2 float64) float64 {
	sum := 0.0
	r := from
	for ; r <= exactRanks; r++ {
		sum += h(r)
	}
	lo, hi := math.Log(r-0.5), math.Log(1e15)
	if lo < hi {
		const n = 4096 // even
		step := (hi - lo) / n
		acc := 0.0
		for i := 0; i <= n; i++ {
			t := lo + float64(i)*step
			x := math.Exp(t)
			w := 2.0
			switch {
			case i == 0 || i == n:
				w = 1
			case i%2 == 1:
				w = 4
			}
			acc += w * h(x) * x
		}
		sum += acc * step / 3
	}
	end := math.Max(1e15, r-0.5)
	return sum + a*math.Pow(end, 1-s2)/(s2-1)
}

// vocab is the expected number of distinct terms when the collection holds
// u expected bursts in all (a term of rank r appears unless none of its
// Poisson(u*f(r)) bursts happens).
func (sp spectrum) vocab(u float64) float64 {
	return rankSum(func(r float64) float64 { return -math.Expm1(-u * sp.f(r)) }, 1, u*sp.c*sp.a, sp.s2)
}

// withKnee returns the normalised spectrum with knee r0.
func withKnee(s, s2, r0 float64) spectrum {
	sp := spectrum{s: s, s2: s2, r0: r0, a: math.Pow(r0, s2-s), c: 1}
	sp.c = 1 / rankSum(sp.g, 1, sp.a, s2)
	return sp
}

// errNoKnee is returned when no knee gives the wanted vocabulary.
var errNoKnee = errors.New("gen: no rank-frequency curve has this vocabulary: check heaps_k, heaps_beta and zipf_s")

// solveSpectrum finds the knee for which a collection with u expected
// bursts has the expected vocabulary want. The vocabulary grows with the
// knee when s < s2 (a longer flat head pushes mass into the middle ranks),
// so the knee is found by bisection on ln r0.
func solveSpectrum(s, beta, u, want float64) (spectrum, error) {
	s2 := 1 / beta // Params.Validate keeps s below s2
	lo, hi := 0.0, math.Log(1e12)
	vlo, vhi := withKnee(s, s2, 1).vocab(u), withKnee(s, s2, math.Exp(hi)).vocab(u)
	switch {
	case want <= vlo:
		return withKnee(s, s2, 1), nil
	case want >= vhi:
		return spectrum{}, errNoKnee
	}
	for range 80 {
		mid := (lo + hi) / 2
		if withKnee(s, s2, math.Exp(mid)).vocab(u) < want {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-6 {
			break
		}
	}
	return withKnee(s, s2, math.Exp((lo+hi)/2)), nil
}

// lastRank is the largest rank whose expected number of bursts in a
// collection of u expected bursts is at least eps.
func (sp spectrum) lastRank(u, eps float64) float64 {
	if u*sp.c < eps {
		return 0
	}
	r := math.Pow(u*sp.c/eps, 1/sp.s)
	if r > sp.r0 {
		r = math.Pow(u*sp.c*sp.a/eps, 1/sp.s2)
	}
	return math.Floor(r)
}

// tailTerms is the expected number of terms of rank greater than from
// that appear in a collection of u expected bursts.
func (sp spectrum) tailTerms(u, from float64) float64 {
	return rankSum(func(r float64) float64 { return -math.Expm1(-u * sp.f(r)) }, from+1, u*sp.c*sp.a, sp.s2)
}
