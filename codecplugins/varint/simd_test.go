package varint

import (
	"runtime"
	"testing"

	"github.com/gpusearch/gpusearch/internal/simd"

	"github.com/gpusearch/gpusearch/internal/gentest"
)

// TestSIMDGeneratedUpToDate requires the assembly and its stubs to be what
// gensimd writes today.
func TestSIMDGeneratedUpToDate(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the assembly is for amd64")
	}
	gentest.UpToDateFiles(t, "./internal/gensimd", map[string]string{
		"out":   "varint_amd64.s",
		"stubs": "varint_amd64_stubs.go",
	})
}

// TestStreamVByteBlockAsmTaken requires the one-call assembly decoders to
// take a full block (at the SSE and AVX2 levels), and the running-sum one
// to refuse exactly the blocks whose sums it could not prove below 2^32:
// codectest's differential tests compare results, which a decoder that
// always fell back to Go would pass too.
func TestStreamVByteBlockAsmTaken(t *testing.T) {
	small := make([]uint32, 128) // values below 2^24
	big := make([]uint32, 128)   // one value of four bytes
	for i := range small {
		small[i] = uint32(i * 70001 % (1 << 24))
		big[i] = small[i]
	}
	big[77] = 1 << 24
	const maxBase = 1<<32 - 1 - 128*(1<<24-1)
	for _, lv := range simd.Levels()[1:] {
		t.Run(lv.String(), func(t *testing.T) {
			defer simd.Set(simd.Set(lv))
			var dst [128]uint32
			for _, c := range []struct {
				v    []uint32
				base uint32
				want bool
			}{{small, 0, true}, {small, maxBase, true}, {small, maxBase + 1, false}, {big, 0, false}} {
				src := StreamVByte{}.AppendBlock(nil, c.v)
				if !svbBlockAsm(&dst, src, lv) {
					t.Fatal("svbBlockAsm refused a whole block")
				}
				if got := svbBlockPrefixAsm(&dst, src, c.base); got != c.want {
					t.Errorf("base %d: svbBlockPrefixAsm = %v, want %v", c.base, got, c.want)
				}
				if svbBlockAsm(&dst, src[:len(src)-1], lv) {
					t.Fatal("svbBlockAsm took a block one byte short")
				}
			}
		})
	}
}
