//go:build amd64 && !purego

package bm25

import (
	"unsafe"

	"github.com/gpusearch/gpusearch/internal/simd"
)

//go:generate go run ./internal/gensimd -out score_amd64.s -stubs score_amd64_stubs.go

// scoreBlockAsm scores the longest prefix of docs whose length is a
// multiple of 8 in assembly, at SIMD level AVX2, and returns its length;
// 0 where the level is lower, or where a docid is out of norms' range or
// a frequency too large for the kernel (ScoreBlock's loop then scores
// them all, and panics on the bad docid).
func scoreBlockAsm(dst []float32, idf float32, docs, freqs []uint32, norms []float32, k1p1 float32) int {
	n := len(docs) &^ 7
	if n == 0 || simd.Current() < simd.AVX2 {
		return 0
	}
	// VGATHERDPS's indices are signed: a limit of 2^31 keeps them positive.
	limit := uint32(min(len(norms), 1<<31))
	if !scoreAVX2(unsafe.SliceData(dst), unsafe.SliceData(docs), unsafe.SliceData(freqs), n, unsafe.SliceData(norms), limit, idf, k1p1) {
		return 0
	}
	return n
}
