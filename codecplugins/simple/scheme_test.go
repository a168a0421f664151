package simple

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/internal/gentest"
	"github.com/gpusearch/gpusearch/internal/simd"
)

// TestFastMatchesLayouts checks the generated unrolled decoders against the
// layout tables, field by field, for every selector of both schemes.
func TestFastMatchesLayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range []*scheme{simple9, simple16} {
		for sel, widths := range s.layouts {
			if widths == nil {
				continue
			}
			t.Run(fmt.Sprintf("%s/selector=%d", s.name, sel), func(t *testing.T) {
				for range 100 {
					w := uint32(sel)<<28 | rng.Uint32()>>4
					if w == s.escape {
						continue
					}
					src := binary.LittleEndian.AppendUint32(nil, w)
					got := make([]uint32, len(widths))
					if i, p := s.fast(got, src, 0, 0); i != len(widths) || p != 4 {
						t.Fatalf("fast(%#x) stopped at value %d, byte %d; want %d, 4", w, i, p, len(widths))
					}
					shift := uint8(0)
					for j, b := range widths {
						if want := w >> shift & (1<<b - 1); got[j] != want {
							t.Fatalf("fast(%#x)[%d] = %d, want %d", w, j, got[j], want)
						}
						shift += b
					}
				}
			})
		}
	}
}

// TestGeneratedUpToDate requires simple_gen.go to be what its generator
// writes today.
func TestGeneratedUpToDate(t *testing.T) {
	gentest.UpToDate(t, "./internal/gen", "simple_gen.go")
}

// TestDecodeWords16Levels decodes random Simple-16 words, escape words
// among them, with DecodeWords16 at every SIMD level into rooms of every
// size around the 28 values the assembly needs, and requires level Go's
// values, stopping point and untouched memory past it.
func TestDecodeWords16Levels(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, lv := range simd.Levels()[1:] {
		t.Run(lv.String(), func(t *testing.T) {
			for range 2000 {
				var src []byte
				for range rng.IntN(12) {
					w := rng.Uint32()
					if rng.IntN(16) == 0 {
						w = escape16
					}
					src = binary.LittleEndian.AppendUint32(src, w)
				}
				src = src[:len(src)-rng.IntN(min(len(src), 3)+1)] // maybe a cut word
				room := rng.IntN(120)
				want, got := make([]uint32, room+32), make([]uint32, room+32)
				var wi, wp, gi, gp int
				simd.Run(simd.Go, func() { wi, wp = DecodeWords16(want[:room], src, 0, 0) })
				simd.Run(lv, func() { gi, gp = DecodeWords16(got[:room], src, 0, 0) })
				if gi != wi || gp != wp {
					t.Fatalf("room %d, %x: stopped at value %d, byte %d; level Go at %d, %d", room, src, gi, gp, wi, wp)
				}
				for j := range gi {
					if got[j] != want[j] {
						t.Fatalf("room %d, %x: value %d = %d, level Go %d", room, src, j, got[j], want[j])
					}
				}
				for j := room; j < len(got); j++ {
					if got[j] != 0 {
						t.Fatalf("room %d: wrote past it at %d", room, j)
					}
				}
			}
		})
	}
}

// TestAsmUpToDate requires the assembly and its stubs to be what gensimd
// writes today.
func TestAsmUpToDate(t *testing.T) {
	gentest.UpToDateFiles(t, "./internal/gensimd", map[string]string{
		"out":   "simple_amd64.s",
		"stubs": "simple_amd64_stubs.go",
	})
}
