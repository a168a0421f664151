package bm25

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/internal/gentest"
	"github.com/gpusearch/gpusearch/internal/simd"
)

// scoreLoop is ScoreBlock's reference: TermScore a posting.
func scoreLoop(p Params, idf float32, docs, freqs []uint32, norms []float32) []float32 {
	out := make([]float32, len(docs))
	for i, d := range docs {
		out[i] = p.TermScore(idf, freqs[i]+1, norms[d])
	}
	return out
}

// sameBits reports whether a and b hold the same float32 bits, a NaN
// matching any NaN.
func sameBits(a, b []float32) int {
	for i := range a {
		x, y := a[i], b[i]
		if math.Float32bits(x) != math.Float32bits(y) && !(x != x && y != y) {
			return i
		}
	}
	return -1
}

// TestScoreBlockMatchesTermScore runs ScoreBlock at every SIMD level on
// random runs of postings, of every length up to past two kernel steps,
// and on the frequencies and norms at the kernel's edges, against
// TermScore bit for bit.
func TestScoreBlockMatchesTermScore(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	norms := make([]float32, 5000)
	for i := range norms {
		norms[i] = DefaultParams().Norm(uint32(r.IntN(3000)), 250)
	}
	norms[0], norms[1], norms[2] = 0, math.SmallestNonzeroFloat32, math.MaxFloat32
	edges := []uint32{0, 1, 2, 1<<24 - 1, 1 << 24, 1<<24 + 1, 1<<31 - 3, maxKernelFreq, maxKernelFreq + 1, 1<<32 - 2, 1<<32 - 1}
	params := []Params{DefaultParams(), {K1: 1.2, B: 0.75}, {K1: 0, B: 0}, {K1: 3.7, B: 1}}
	idfs := []float32{0, 1e-6, 0.3, IDF(976612, 3), 40}
	for _, level := range simd.Levels() {
		for _, p := range params {
			for _, idf := range idfs {
				for n := range 40 {
					docs, freqs := make([]uint32, n), make([]uint32, n)
					for i := range docs {
						docs[i] = uint32(r.IntN(len(norms)))
						switch r.IntN(4) {
						case 0:
							freqs[i] = edges[r.IntN(len(edges))]
						default:
							freqs[i] = uint32(r.IntN(20))
						}
					}
					if n > 0 && n%5 == 0 {
						docs[r.IntN(n)] = uint32(r.IntN(3)) // a norm at an edge
					}
					got := make([]float32, n)
					simd.Run(level, func() { p.ScoreBlock(got, idf, docs, freqs, norms) })
					want := scoreLoop(p, idf, docs, freqs, norms)
					if i := sameBits(got, want); i >= 0 {
						t.Fatalf("%v, %+v, idf %v, %d postings: posting %d (doc %d, stored freq %d) scored %v, TermScore %v",
							level, p, idf, n, i, docs[i], freqs[i], got[i], want[i])
					}
				}
			}
		}
	}
}

// TestScoreBlockRejectsBadDocids requires a docid past the norms to panic
// at every level, as TermScore's callers do, the kernel's range check
// included: the last docid of a full kernel step, and one at 2^31, which
// VGATHERDPS would read as a negative index.
func TestScoreBlockRejectsBadDocids(t *testing.T) {
	norms := make([]float32, 100)
	for _, level := range simd.Levels() {
		for _, bad := range []uint32{100, 1 << 31, 1<<32 - 1} {
			docs, freqs := make([]uint32, 16), make([]uint32, 16)
			docs[7] = bad
			panicked := func() (p bool) {
				defer func() { p = recover() != nil }()
				simd.Run(level, func() { DefaultParams().ScoreBlock(make([]float32, 16), 1, docs, freqs, norms) })
				return false
			}()
			if !panicked {
				t.Errorf("%v: docid %d of 100 norms scored without a panic", level, bad)
			}
		}
	}
}

// maxKernelFreq mirrors gensimd's maxFreq: the largest stored frequency
// the kernel converts; the test's edges straddle it.
const maxKernelFreq = 1<<31 - 2

// TestAsmUpToDate requires the assembly and its stubs to be what gensimd
// writes today.
func TestAsmUpToDate(t *testing.T) {
	gentest.UpToDateFiles(t, "./internal/gensimd", map[string]string{
		"out":   "score_amd64.s",
		"stubs": "score_amd64_stubs.go",
	})
}

// BenchmarkScoreBlock scores 128 postings of random docids.
func BenchmarkScoreBlock(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	norms := make([]float32, 1<<20)
	for i := range norms {
		norms[i] = DefaultParams().Norm(uint32(r.IntN(3000)), 250)
	}
	docs, freqs := make([]uint32, 128), make([]uint32, 128)
	for i := range docs {
		docs[i] = uint32(r.IntN(len(norms)))
		freqs[i] = uint32(r.IntN(5))
	}
	dst := make([]float32, 128)
	for _, level := range simd.Levels() {
		b.Run(level.String(), func(b *testing.B) {
			defer simd.Set(simd.Set(level))
			for b.Loop() {
				DefaultParams().ScoreBlock(dst, 1.5, docs, freqs, norms)
			}
		})
	}
}
