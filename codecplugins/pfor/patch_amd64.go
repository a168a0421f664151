//go:build amd64 && !purego

package pfor

import (
	"unsafe"

	"github.com/gpusearch/gpusearch/codecplugins/internal/simd"
)

//go:generate go run ./internal/gensimd -out patch_amd64.s -stubs patch_amd64_stubs.go

// scatter writes each of f's exceptions' high parts plus one into patch
// at its position and returns their sum, in assembly at any SIMD level
// but Go; f's positions are checked.
func scatter(patch *[blockLen]uint32, f *fastBlock) uint64 {
	if simd.Current() != simd.Go && f.padded() {
		return scatterHighs(patch, &f.pos[0], len(f.pos), unsafe.SliceData(f.highs), f.hb)
	}
	return scatterGo(patch, f)
}

// patchBlock adds f's exceptions to dst, f's slots decoded, in assembly
// at any SIMD level but Go; f's positions are checked.
func patchBlock(dst *[blockLen]uint32, f *fastBlock) {
	if simd.Current() != simd.Go && f.padded() {
		patchValues(dst, &f.pos[0], len(f.pos), unsafe.SliceData(f.highs), f.hb, f.b)
		return
	}
	patchValuesGo(dst[:], f)
}
