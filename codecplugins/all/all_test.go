package all

import (
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
	"github.com/gpusearch/gpusearch/internal/simd"
)

// TestConformance runs the conformance suite on every registered codec, so
// that a codec cannot be registered without passing it, once at every SIMD
// level this CPU has, so that the assembly decoders and the pure-Go ones
// they fall back to both pass. The codec families' own tests do not call
// codectest.Run on their registered codecs again.
func TestConformance(t *testing.T) {
	names := codecplugins.Names()
	if len(names) == 0 {
		t.Fatal("no codec registered")
	}
	for _, lv := range simd.Levels() {
		t.Run(lv.String(), func(t *testing.T) {
			// Cleanup, not defer: the parallel subtests run after this
			// function returns, and must see the level until they end.
			prev := simd.Set(lv)
			t.Cleanup(func() { simd.Set(prev) })
			for _, name := range names {
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					c, err := codecplugins.Lookup(name)
					if err != nil {
						t.Fatal(err)
					}
					codectest.Run(t, c)
					if p, ok := c.(codecplugins.PrefixDecoder); ok {
						t.Run("prefix", func(t *testing.T) { codectest.RunPrefix(t, p) })
					}
				})
			}
		})
	}
}

// TestDifferential requires every codec to decode the same blocks, valid
// and corrupt, alike at every SIMD level: the assembly decoders against the
// pure-Go ones they replace. Not parallel: it switches the process-wide
// level.
func TestDifferential(t *testing.T) {
	for _, name := range codecplugins.Names() {
		t.Run(name, func(t *testing.T) {
			c, err := codecplugins.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			codectest.Differential(t, c)
		})
	}
}
