// Package bm25 is the one BM25 implementation every engine shares, so that
// CPU and GPU engines, the index writer's score bounds and the exhaustive
// reference all produce bitwise-identical float32 scores.
//
//	idf(t)     = ln(1 + (N - df + 0.5) / (df + 0.5))       (float64, rounded once to float32)
//	norm(d)    = k1 * ((1 - b) + (b * len(d)) / avglen)     (float32)
//	score(t,d) = idf * ((tf * (k1+1)) / (tf + norm(d)))    (float32)
//
// Each float32 operation is rounded on its own: the explicit conversions
// keep the compiler from fusing a multiply and an add, and the GPU kernels
// use round-to-nearest intrinsics in the same order. A document's score is
// the sum of its term scores in query-term order, starting from zero.
package bm25

import "math"

// MaxTitleWeight bounds the title weight w of an index (BM25F at index
// time: a term's frequency is its body's plus w times its title's, a
// document's length its body's plus w times its title's): no ranking needs
// a title worth more than a hundred bodies, and the bound keeps
// frequencies and lengths far from overflowing.
const MaxTitleWeight = 100

// Params are the BM25 free parameters.
type Params struct {
	K1 float32 `json:"k1" yaml:"k1"`
	B  float32 `json:"b" yaml:"b"`
}

// DefaultParams are the defaults docs/design.md states: k1 = 0.9, b = 0.4.
func DefaultParams() Params { return Params{K1: 0.9, B: 0.4} }

// IDF is the inverse document frequency of a term with document frequency
// df in a collection of n documents.
func IDF(n, df uint64) float32 {
	N, D := float64(n), float64(df)
	return float32(math.Log(1 + (N-D+0.5)/(D+0.5)))
}

// Norm is the length normalisation term k1*(1-b+b*len/avg) of a document.
func (p Params) Norm(docLen uint32, avgLen float32) float32 {
	bl := float32(p.B * float32(docLen))
	return float32(p.K1 * float32(float32(1-p.B)+float32(bl/avgLen)))
}

// Norms computes Norm for every document length.
func (p Params) Norms(docLens []uint32, avgLen float32) []float32 {
	out := make([]float32, len(docLens))
	for i, l := range docLens {
		out[i] = p.Norm(l, avgLen)
	}
	return out
}

// TermScore is one term's contribution to a document's score, given the
// term's idf, its frequency in the document and the document's Norm.
func (p Params) TermScore(idf float32, tf uint32, norm float32) float32 {
	f := float32(tf)
	num := float32(f * float32(p.K1+1))
	den := float32(f + norm)
	return float32(idf * float32(num/den))
}
