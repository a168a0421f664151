package gpuformat

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/codectest"
)

var names = []string{"gpu-bp128", "gpu-bp256", "gpu-vbyte128", "gpu-vbyte1024", "gpu-pfordelta", "gpu-rice"}

func lookup(t testing.TB, name string) codecplugins.Codec {
	t.Helper()
	c, err := codecplugins.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPForFixedWidth runs the suite on codecs that ForList returns: every
// slot width, too narrow or too wide for the block, must round-trip
// through the registered codec's decoder.
func TestPForFixedWidth(t *testing.T) {
	for _, b := range []int{0, 1, 3, 7, 16, 31, 32} {
		t.Run(fmt.Sprintf("b=%d", b), func(t *testing.T) {
			codectest.Run(t, PForDelta{b: b, fixed: true})
		})
	}
}

func TestPForForList(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tests := []struct {
		name  string
		gen   func() uint32
		width int // ForList's choice
	}{
		{"geometric-mean-16", func() uint32 { return uint32(rng.ExpFloat64() * 16) }, 5},
		{"ones", func() uint32 { return 1 }, 0}, // all exceptions, all gaps and overflows zero: headers only
		{"uniform-32bit", rng.Uint32, 32},
		{"small-with-outliers", func() uint32 {
			if rng.IntN(50) == 0 {
				return rng.Uint32()
			}
			return uint32(rng.IntN(8))
		}, 3},
	}
	dec := lookup(t, "gpu-pfordelta")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := make([]uint32, 1000)
			for i := range list {
				list[i] = tt.gen()
			}
			c := PForDelta{}.ForList(list)
			if got := c.(PForDelta).Width(); got != tt.width {
				t.Errorf("ForList(%s).Width() = %d, want %d", tt.name, got, tt.width)
			}
			got := make([]uint32, PForBlockSize)
			for start := 0; start < len(list); start += PForBlockSize {
				v := list[start:min(start+PForBlockSize, len(list))]
				if err := dec.DecodeBlock(got, c.AppendBlock(nil, v), len(v)); err != nil {
					t.Fatalf("DecodeBlock(block at %d): %v", start, err)
				}
				for i := range v {
					if got[i] != v[i] {
						t.Fatalf("Decode(block at %d)[%d] = %d, want %d", start, i, got[i], v[i])
					}
				}
			}
		})
	}
}

// TestPForRecursion checks that a block exercises every depth: the root's
// exception arrays have exceptions of their own.
func TestPForRecursion(t *testing.T) {
	v := make([]uint32, PForBlockSize)
	for i := range v {
		v[i] = uint32(i % 3)
	}
	// Overflows of a 2-bit root: mostly small, one huge, so the overflow
	// array itself needs an exception.
	for _, p := range []int{5, 6, 7, 40, 41, 100} {
		v[p] = 4 + uint32(p)
	}
	v[127] = math.MaxUint32
	enc := PForDelta{b: 2, fixed: true}.AppendBlock(nil, v)
	var nodes [PForMaxNodes]pforNode
	cnt := 0
	if _, err := parsePFor(&nodes, &cnt, enc, len(v), 0); err != nil {
		t.Fatal(err)
	}
	if cnt < 4 {
		t.Fatalf("block has %d sequences, want a second level (>= 4)", cnt)
	}
	got := make([]uint32, len(v))
	if err := (PForDelta{}).DecodeBlock(got, enc, len(v)); err != nil {
		t.Fatal(err)
	}
	for i := range v {
		if got[i] != v[i] {
			t.Fatalf("Decode(Encode(v))[%d] = %d, want %d", i, got[i], v[i])
		}
	}
}

func TestGoldenSize(t *testing.T) {
	want := map[string]map[string]int{
		"gpu-bp128":     {"geometric-mean-12": 96, "geometric-mean-3000": 228, "ones-and-outliers": 516, "uniform-32bit": 516},
		"gpu-bp256":     {"geometric-mean-12": 200, "geometric-mean-3000": 464, "ones-and-outliers": 1020, "uniform-32bit": 1032},
		"gpu-vbyte128":  {"geometric-mean-12": 160, "geometric-mean-3000": 280, "ones-and-outliers": 190, "uniform-32bit": 542},
		"gpu-vbyte1024": {"geometric-mean-12": 1280, "geometric-mean-3000": 2214, "ones-and-outliers": 1467, "uniform-32bit": 4349},
		"gpu-pfordelta": {"geometric-mean-12": 96, "geometric-mean-3000": 224, "ones-and-outliers": 72, "uniform-32bit": 516},
		"gpu-rice":      {"geometric-mean-12": 84, "geometric-mean-3000": 212, "ones-and-outliers": 472, "uniform-32bit": 524},
	}
	for _, name := range names {
		c := lookup(t, name)
		t.Run(name, func(t *testing.T) {
			codectest.GoldenSizes(t, c, codectest.GoldenBlocks(c.BlockSize()), want[name])
		})
	}
}

// TestCorrupt feeds hand-made malformed blocks to each decoder.
func TestCorrupt(t *testing.T) {
	le := func(ws ...uint32) []byte {
		var b []byte
		for _, w := range ws {
			b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
		}
		return b
	}
	tests := []struct {
		name   string
		codec  string
		src    []byte
		n      int
		reason string // in the error message
	}{
		{"bp/count-too-large", "gpu-bp128", make([]byte, 600), 129, "value count out of range"},
		{"bp/width-33", "gpu-bp128", append([]byte{33, 0, 0, 0}, make([]byte, 200)...), 32, "bit width above 32"},
		{"bp/width-past-last-miniblock", "gpu-bp128", append([]byte{1, 0, 1, 0}, make([]byte, 200)...), 32, "past the last value"},
		{"bp/short-body", "gpu-bp256", append([]byte{32, 32, 0, 0, 0, 0, 0, 0}, make([]byte, 255)...), 64, "truncated block"},
		{"vbyte/short-selectors", "gpu-vbyte1024", make([]byte, 255), 1024, "truncated selectors"},
		{"vbyte/short-data", "gpu-vbyte128", []byte{0xFF, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, 4, "truncated data"},
		{"pfor/width-33", "gpu-pfordelta", le(33, 0), 4, "slot width above 32"},
		{"pfor/too-many-exceptions", "gpu-pfordelta", le(1|5<<6, 0, 0, 0, 0), 4, "more exceptions than values"},
		{"pfor/width-32-with-exceptions", "gpu-pfordelta", le(32|1<<6, 0, 0, 0, 0), 1, "cannot have any"},
		// Root b=0 with one exception; its gap array b=0 with one
		// exception; that one's children at the last depth with one
		// exception each: not allowed.
		{"pfor/exceptions-at-last-depth", "gpu-pfordelta", le(0|1<<6|(0|1<<6)<<16, (0|1<<6)|(0|1<<6)<<16, 0, 0, 0, 0), 1, "cannot have any"},
		// Root b=0, one exception at gap 5 in a 2-value block.
		{"pfor/position-past-end", "gpu-pfordelta", le(0|1<<6|3<<16, 0|0<<6, 5, 0), 2, "position past"},
		// Root b=31, one exception with stored overflow 1: (1+1)<<31 overflows.
		{"pfor/overflow", "gpu-pfordelta", le(31|1<<6|0<<16, 1|0<<6, 0, 1), 1, "overflows 32 bits"},
		{"pfor/short-slots", "gpu-pfordelta", le(8, 0), 8, "truncated slots"},
		{"rice/param-33", "gpu-rice", le(33, 0), 1, "parameter above 32"},
		{"rice/reserved-bits", "gpu-rice", le(1|1<<8|1<<16, 0, 0), 1, "reserved header bits"},
		{"rice/quotient-overflow", "gpu-rice", le(31|1<<16, 0, 0x3), 1, "quotient overflows"},
		{"rice/unary-ends-early", "gpu-rice", le(0|1<<16, 0xFFFFFFFE), 2, "ends before"},
		{"rice/unary-too-long", "gpu-rice", le(0|2<<16, 0, 0), 1, "longer than its values"},
		{"rice/short-unary", "gpu-rice", le(0|3<<16, 0, 0), 1, "truncated block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]uint32, tt.n)
			err := lookup(t, tt.codec).DecodeBlock(dst, tt.src, tt.n)
			if !errors.Is(err, codecplugins.ErrCorrupt) || !strings.Contains(err.Error(), tt.reason) {
				t.Errorf("%s.DecodeBlock(%s) = %v, want an error wrapping ErrCorrupt about %q", tt.codec, tt.name, err, tt.reason)
			}
		})
	}
}

func FuzzDecodeGPUBP128(f *testing.F)     { fuzz(f, "gpu-bp128") }
func FuzzDecodeGPUBP256(f *testing.F)     { fuzz(f, "gpu-bp256") }
func FuzzDecodeGPUVByte128(f *testing.F)  { fuzz(f, "gpu-vbyte128") }
func FuzzDecodeGPUVByte1024(f *testing.F) { fuzz(f, "gpu-vbyte1024") }
func FuzzDecodeGPUPForDelta(f *testing.F) { fuzz(f, "gpu-pfordelta") }
func FuzzDecodeGPURice(f *testing.F)      { fuzz(f, "gpu-rice") }

// fuzz runs codectest.Fuzz on name; the seeds are in testdata/fuzz.
func fuzz(f *testing.F, name string) {
	c := lookup(f, name)
	f.Fuzz(func(t *testing.T, data []byte, n int) { codectest.Fuzz(c, data, n) })
}
