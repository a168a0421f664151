package simple

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins/internal/gentest"
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
