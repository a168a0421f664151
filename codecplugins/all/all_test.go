package all

import (
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

// TestConformance runs the conformance suite on every registered codec, so
// that a codec cannot be registered without passing it. The codec families'
// own tests do not call codectest.Run on their registered codecs again.
func TestConformance(t *testing.T) {
	names := codecplugins.Names()
	if len(names) == 0 {
		t.Fatal("no codec registered")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := codecplugins.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			codectest.Run(t, c)
		})
	}
}
