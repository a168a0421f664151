//go:build amd64 && !purego

package pfor

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
	"github.com/gpusearch/gpusearch/internal/simd"
)

//go:generate go run ./internal/gensimd -out patch_amd64.s -stubs patch_amd64_stubs.go

// asm reports whether f's exceptions go through the assembly: at a SIMD
// level above Go, on a CPU with BMI2 (every one with AVX2 in practice,
// and the assembly's shifts need it), where the slots pad the high parts.
func asm(f *fastBlock) bool {
	return simd.Current() != simd.Go && cpu.X86.HasBMI2 && f.padded()
}

// patchedPrefix decodes f, a full block with exceptions, into running
// sums from base in dst and returns the sum of its high parts plus one;
// it reports false where the positions do not increase strictly below
// blockLen. Where asm says, its high parts go into the patch in assembly
// and the patched kernel runs in one assembly call; the caller checks
// the sums' range after, and decodes again where they passed 2^32-1.
func patchedPrefix(dst *[blockLen]uint32, f *fastBlock, base uint32) (uint64, bool) {
	var patch [blockLen]uint32
	if asm(f) {
		highs, ok := scatterHighs(&patch, &f.pos[0], len(f.pos), unsafe.SliceData(f.highs), f.hb, blockLen)
		if ok {
			bitpack.UnpackVerticalPatchedPrefixSIMD(dst, f.slots, f.b, &patch, base, simd.Current())
		}
		return highs, ok
	}
	return patchedPrefixGo(dst, f, base, &patch)
}

// decodePatched decodes f, a full block with exceptions, into dst: its
// slots by bp128's kernel and its exceptions added after, both in
// assembly where asm says; it reports false where the positions do not
// increase strictly below blockLen.
func decodePatched(dst *[blockLen]uint32, f *fastBlock) bool {
	if asm(f) {
		bitpack.UnpackVerticalSIMD(dst, f.slots, f.b, simd.Current())
		return patchValues(dst, &f.pos[0], len(f.pos), unsafe.SliceData(f.highs), f.hb, f.b, blockLen)
	}
	bitpack.UnpackVertical(dst, f.slots, f.b)
	return patchValuesGo(dst[:], f)
}
