//go:build amd64 && !purego

package pfor

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/gpusearch/gpusearch/codecplugins/internal/simd"
)

//go:generate go run ./internal/gensimd -out patch_amd64.s -stubs patch_amd64_stubs.go

// asm reports whether f's exceptions go through the assembly: at a SIMD
// level above Go, on a CPU with BMI2 (every one with AVX2 in practice,
// and the assembly's shifts need it), where the slots pad the high parts.
func asm(f *fastBlock) bool {
	return simd.Current() != simd.Go && cpu.X86.HasBMI2 && f.padded()
}

// scatter writes each of f's exceptions' high parts plus one into patch
// at its position and returns their sum, in assembly where asm says; it
// reports false where the positions do not increase strictly
// below blockLen.
func scatter(patch *[blockLen]uint32, f *fastBlock) (uint64, bool) {
	if asm(f) {
		return scatterHighs(patch, &f.pos[0], len(f.pos), unsafe.SliceData(f.highs), f.hb, blockLen)
	}
	return scatterGo(patch, f)
}

// patchBlock adds f's exceptions to dst, f's slots decoded, in assembly
// where asm says; it reports false where the positions do not
// increase strictly below blockLen.
func patchBlock(dst *[blockLen]uint32, f *fastBlock) bool {
	if asm(f) {
		return patchValues(dst, &f.pos[0], len(f.pos), unsafe.SliceData(f.highs), f.hb, f.b, blockLen)
	}
	return patchValuesGo(dst[:], f)
}
