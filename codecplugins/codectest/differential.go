package codectest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/internal/simd"
)

// Differential decodes the same input with c at every SIMD level this CPU
// has and requires the pure-Go level's result from each: the same values,
// and an error exactly where the pure-Go decoder gives one. Its inputs are
// encoded blocks of every length 0..BlockSize at every bit width, then
// random bytes and single-byte corruptions of encoded blocks at random
// lengths. On a CPU or build with only the Go level it has nothing to
// compare and returns at once.
func Differential(t *testing.T, c codecplugins.Codec) {
	t.Helper()
	if len(simd.Levels()) < 2 {
		return
	}
	bs := c.BlockSize()
	rng := rand.New(rand.NewPCG(11, uint64(bs)))
	for w := 0; w <= 32; w++ {
		for n := 0; n <= bs; n++ {
			v := Fill(n, func(int) uint32 { return uint32(rng.Uint64() & mask(w)) })
			if n > 0 {
				v[rng.IntN(n)] = uint32(mask(w))
			}
			enc := c.AppendBlock(nil, v)
			if !sameAtLevels(c, enc, n) {
				t.Fatalf("%s: levels disagree on the encoding of %d values of width %d: %x", c.Name(), n, w, enc)
			}
			if len(enc) > 0 {
				bad := slices.Clone(enc)
				bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
				if !sameAtLevels(c, bad, n) {
					t.Fatalf("%s: levels disagree on a corrupted block of %d values: %x", c.Name(), n, bad)
				}
			}
		}
	}
	for range 3000 {
		src := make([]byte, rng.IntN(6*bs+16))
		for j := range src {
			src[j] = byte(rng.Uint32())
		}
		if n := rng.IntN(bs + 1); !sameAtLevels(c, src, n) {
			t.Fatalf("%s: levels disagree on %d random bytes as %d values: %x", c.Name(), len(src), n, src)
		}
	}
}

// FuzzLevels is Differential's check for one input, for fuzz targets: it
// panics unless every SIMD level decodes data as n values (folded into
// [0, BlockSize]) as the pure-Go level does.
func FuzzLevels(c codecplugins.Codec, data []byte, n int) {
	if n < 0 {
		n = -n
	}
	n %= c.BlockSize() + 1
	if !sameAtLevels(c, data, n) {
		panic(fmt.Sprintf("%s: SIMD levels disagree on %x as %d values", c.Name(), data, n))
	}
}

// sameAtLevels decodes a copy of src of exactly its length, followed by a
// page without access so that a read past it faults, at every level and
// compares with level Go; for a PrefixDecoder it compares
// DecodeBlockPrefix's results from a base drawn from src too.
func sameAtLevels(c codecplugins.Codec, src []byte, n int) bool {
	same := true
	guarded(src, func(buf []byte) {
		same = sameDecodes(func(dst []uint32) error { return c.DecodeBlock(dst, buf, n) }, n)
		if p, ok := c.(codecplugins.PrefixDecoder); ok && same {
			base := uint32(len(src)) * 0x9E3779B9 // large and small bases, from the input alone
			same = sameDecodes(func(dst []uint32) error { return p.DecodeBlockPrefix(dst, buf, n, base) }, n)
		}
	})
	return same
}

// sameDecodes runs decode into a fresh dst of n values at every level and
// reports whether every level gives level Go's values and error status.
func sameDecodes(decode func(dst []uint32) error, n int) bool {
	var want []uint32
	var wantErr error
	for _, lv := range simd.Levels() {
		got := make([]uint32, n)
		var err error
		simd.Run(lv, func() { err = decode(got) })
		if lv == simd.Go {
			want, wantErr = got, err
			continue
		}
		if (err == nil) != (wantErr == nil) || (err == nil && !slices.Equal(got, want)) {
			return false
		}
	}
	return true
}
