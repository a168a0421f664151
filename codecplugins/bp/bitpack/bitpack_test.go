package bitpack

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/internal/gentest"
)

// refBit returns bit p of a little-endian word stream whose word j is at
// byte off(j).
func refBit(src []byte, off func(j int) int, p int) uint32 {
	return uint32(src[off(p/32)+(p%32)/8]>>(p%8)) & 1
}

// refValue reads the b-bit value that starts at bit p of the stream.
func refValue(src []byte, off func(j int) int, p, b int) uint32 {
	var x uint32
	for i := 0; i < b; i++ {
		x |= refBit(src, off, p+i) << i
	}
	return x
}

func randomValues(rng *rand.Rand, n, b int) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = rng.Uint32() // high bits above b must be dropped by packing
	}
	return v
}

func lowBits(x uint32, b int) uint32 { return uint32(uint64(x) & (1<<b - 1)) }

func TestVerticalLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 128))
	for b := 0; b <= MaxWidth; b++ {
		t.Run(fmt.Sprintf("b=%d", b), func(t *testing.T) {
			v := randomValues(rng, BlockLen, b)
			enc := AppendVertical([]byte{0xEE}, (*[BlockLen]uint32)(v), b)
			if enc[0] != 0xEE || len(enc) != 1+VerticalLen(b) {
				t.Fatalf("AppendVertical: len %d, first byte %#x; want %d, 0xee", len(enc), enc[0], 1+VerticalLen(b))
			}
			enc = enc[1:]
			for i, x := range v {
				lane := i % 4
				off := func(j int) int { return 16*j + 4*lane }
				if got, want := refValue(enc, off, (i/4)*b, b), lowBits(x, b); got != want {
					t.Fatalf("value %d in lane %d = %d, want %d", i, lane, got, want)
				}
			}
			var got [BlockLen]uint32
			for i := range got {
				got[i] = 0xDEADBEEF
			}
			UnpackVertical(&got, enc, b)
			for i, x := range v {
				if want := lowBits(x, b); got[i] != want {
					t.Fatalf("UnpackVertical(AppendVertical(v))[%d] = %d, want %d", i, got[i], want)
				}
			}
		})
	}
}

func TestHorizontalLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 32))
	for b := 0; b <= MaxWidth; b++ {
		for _, n := range []int{0, 1, 2, 5, 31, 32, 33, 64, 100, 127, 128} {
			t.Run(fmt.Sprintf("b=%d/n=%d", b, n), func(t *testing.T) {
				v := randomValues(rng, n, b)
				enc := AppendHorizontal([]byte{0xEE}, v, b)
				if enc[0] != 0xEE || len(enc) != 1+HorizontalLen(n, b) {
					t.Fatalf("AppendHorizontal: len %d, first byte %#x; want %d, 0xee", len(enc), enc[0], 1+HorizontalLen(n, b))
				}
				enc = enc[1:]
				off := func(j int) int { return 4 * j }
				for i, x := range v {
					if got, want := refValue(enc, off, i*b, b), lowBits(x, b); got != want {
						t.Fatalf("value %d = %d, want %d", i, got, want)
					}
				}
				if r := n * b % 8; r != 0 && enc[len(enc)-1]>>r != 0 {
					t.Fatalf("last byte %#x has bits set past the %d used", enc[len(enc)-1], r)
				}
				got := make([]uint32, n+1)
				got[n] = 0xDEADBEEF
				UnpackHorizontal(got[:n], append([]byte(nil), enc...), b)
				for i, x := range v {
					if want := lowBits(x, b); got[i] != want {
						t.Fatalf("UnpackHorizontal(AppendHorizontal(v))[%d] = %d, want %d", i, got[i], want)
					}
				}
				if got[n] != 0xDEADBEEF {
					t.Fatalf("UnpackHorizontal wrote past dst")
				}
			})
		}
	}
}

func TestWidth(t *testing.T) {
	tests := []struct {
		v    []uint32
		want int
	}{
		{nil, 0},
		{[]uint32{0, 0}, 0},
		{[]uint32{1}, 1},
		{[]uint32{4, 3}, 3},
		{[]uint32{1 << 31}, 32},
	}
	for _, tt := range tests {
		if got := Width(tt.v); got != tt.want {
			t.Errorf("Width(%v) = %d, want %d", tt.v, got, tt.want)
		}
	}
}

// TestGeneratedUpToDate requires bitpack_gen.go to be what its generator
// writes today.
func TestGeneratedUpToDate(t *testing.T) {
	gentest.UpToDate(t, "../internal/gen", "bitpack_gen.go")
}

func BenchmarkUnpackGroup(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, w := range []int{1, 4, 8, 13, 32} {
		v := randomValues(rng, GroupLen, w)
		enc := AppendGroup(nil, (*[GroupLen]uint32)(v), w)
		b.Run(fmt.Sprintf("b=%d", w), func(b *testing.B) {
			var dst [GroupLen]uint32
			b.SetBytes(4 * GroupLen)
			for b.Loop() {
				UnpackGroup(&dst, enc, w)
			}
			b.ReportMetric(float64(b.N)*GroupLen/b.Elapsed().Seconds()/1e6, "Mis")
		})
	}
}

// TestUnpackHorizontalAllocates checks that a decode allocates nothing,
// a partial group included (pfor decodes its exceptions so, in most blocks).
func TestUnpackHorizontalAllocates(t *testing.T) {
	v := randomValues(rand.New(rand.NewPCG(1, 2)), 45, 17)
	enc := AppendHorizontal(nil, v, 17)
	dst := make([]uint32, len(v))
	if n := testing.AllocsPerRun(100, func() { UnpackHorizontal(dst, enc, 17) }); n != 0 {
		t.Errorf("UnpackHorizontal allocates %v times a call", n)
	}
}
