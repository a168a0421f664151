package rice

import (
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

// splitCodec returns the registered split codec called name.
func splitCodec(t testing.TB, name string) codecplugins.Codec {
	c, err := codecplugins.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSplitLikeInterleaved: a split codec picks its twin's k, so its
// blocks decode to the same values and take at most one byte more.
func TestSplitLikeInterleaved(t *testing.T) {
	twins := map[string]codecplugins.Codec{"rice-hor": Rice{}, "rice-ver": Rice{}, "optrice-hor": OptRice{}, "optrice-ver": OptRice{}}
	for name, twin := range twins {
		c := splitCodec(t, name)
		for _, tt := range codectest.GoldenBlocks(blockSize) {
			got, want := c.AppendBlock(nil, tt.V), twin.AppendBlock(nil, tt.V)
			if len(got) > len(want)+1 || len(got) > 0 && got[0] != want[0] {
				t.Errorf("%s, %s: %d bytes, k %d; %s: %d bytes, k %d", name, tt.Name, len(got), got[0], twin.Name(), len(want), want[0])
			}
			dec := make([]uint32, len(tt.V))
			if err := c.DecodeBlock(dec, got, len(dec)); err != nil || !slices.Equal(dec, tt.V) {
				t.Errorf("%s, %s: decodes %v, %v", name, tt.Name, err, dec)
			}
		}
	}
}

// TestSplitFormat pins the bytes of a small block: k, low parts, then
// the quotients' unary codes, one of them an escape.
func TestSplitFormat(t *testing.T) {
	// meanK: floor(0.69 * mean 11.5) = 7, so k = floor(log2 7) = 2.
	c := splitCodec(t, "rice-hor")
	v := []uint32{1, 2, 3, 40}
	got := c.AppendBlock(nil, v)
	k := got[0]
	low := byte(0)
	for i, x := range v {
		low |= byte(x&(1<<k-1)) << (uint(i) * uint(k))
	}
	if k != 2 || got[1] != low {
		t.Fatalf("rice-hor %v = %x: want k 2 and low parts %#x", v, got, low)
	}
	// quotients 0, 0, 0, 10: "1", "1", "1", ten zeros and "1", LSB first.
	want := []byte{2, low, 0b00000111, 0b00100000}
	if !slices.Equal(got, want) {
		t.Errorf("rice-hor %v = %08b, want %08b", v, got, want)
	}
}

func FuzzDecodeRiceHor(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		for _, name := range []string{"rice-hor", "rice-ver", "optrice-hor", "optrice-ver"} {
			codectest.Fuzz(splitCodec(t, name), data, n)
			codectest.FuzzLevels(splitCodec(t, name), data, n)
		}
	})
}
