package codectest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// Run checks c against the codec contract.
func Run(t *testing.T, c codecplugins.Codec) {
	t.Helper()
	bs := c.BlockSize()
	rng := rand.New(rand.NewPCG(1, uint64(bs)))
	var cases []struct {
		name string
		v    []uint32
	}
	add := func(name string, v []uint32) {
		cases = append(cases, struct {
			name string
			v    []uint32
		}{name, v})
	}
	for _, n := range sizes(bs) {
		add(fmt.Sprintf("zeros/n=%d", n), make([]uint32, n))
		add(fmt.Sprintf("max/n=%d", n), Fill(n, func(int) uint32 { return math.MaxUint32 }))
		add(fmt.Sprintf("small/n=%d", n), Fill(n, func(int) uint32 { return uint32(rng.IntN(8)) }))
		add(fmt.Sprintf("random/n=%d", n), Fill(n, func(int) uint32 { return rng.Uint32() }))
		add(fmt.Sprintf("geometric/n=%d", n), Fill(n, func(int) uint32 { return uint32(rng.ExpFloat64() * 20) }))
	}
	for w := 0; w <= 32; w++ {
		// Every value below 2^w, one of them exactly 2^w-1 so the width is w.
		v := Fill(bs, func(int) uint32 { return uint32(rng.Uint64() & mask(w)) })
		v[rng.IntN(bs)] = uint32(mask(w))
		add(fmt.Sprintf("width=%d", w), v)
		// One outlier among small values: the case exception codecs handle.
		o := Fill(bs, func(int) uint32 { return uint32(rng.IntN(4)) })
		o[rng.IntN(bs)] = uint32(mask(w))
		add(fmt.Sprintf("outlier=%d", w), o)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { RoundTrip(t, c, tc.v) })
	}
	t.Run("garbage", func(t *testing.T) { Garbage(t, c, rng) })
}

// RoundTrip encodes v, decodes it back, and checks the value, that trailing
// junk is ignored, and that truncated input gives an error.
func RoundTrip(t *testing.T, c codecplugins.Codec, v []uint32) {
	t.Helper()
	prefix := []byte{0xAB, 0xCD}
	enc := c.AppendBlock(append([]byte(nil), prefix...), v)
	if string(enc[:2]) != string(prefix) {
		t.Fatalf("%s: AppendBlock overwrote dst's existing bytes", c.Name())
	}
	enc = enc[2:]
	if again := c.AppendBlock(nil, v); string(again) != string(enc) {
		t.Fatalf("%s: AppendBlock is not deterministic", c.Name())
	}
	n := len(v)
	got := poisoned(n + 8)
	if err := c.DecodeBlock(got, enc, n); err != nil {
		t.Fatalf("%s: DecodeBlock(n=%d) error: %v", c.Name(), n, err)
	}
	checkEqual(t, c.Name(), got[:n], v)
	for i := n; i < len(got); i++ {
		if got[i] != poison {
			t.Fatalf("%s: DecodeBlock(n=%d) wrote past dst[:n] at %d", c.Name(), n, i)
		}
	}
	// Trailing junk is not read as part of the block.
	junk := append(append([]byte(nil), enc...), 0xFF, 0x00, 0x7F, 0x80, 0xFF, 0xFF, 0xFF, 0xFF)
	got = poisoned(n)
	if err := c.DecodeBlock(got, junk, n); err != nil {
		t.Fatalf("%s: DecodeBlock with trailing junk: %v", c.Name(), err)
	}
	checkEqual(t, c.Name(), got, v)
	// Truncated input is an error wrapping ErrCorrupt, never a panic.
	if n == 0 {
		return
	}
	for _, cut := range cuts(len(enc)) {
		buf := append([]byte(nil), enc[:cut]...) // exact capacity: a read past it faults in tests with -race
		err := c.DecodeBlock(poisoned(n), buf, n)
		if err == nil {
			t.Fatalf("%s: DecodeBlock of %d-byte prefix of %d-byte block (n=%d): no error", c.Name(), cut, len(enc), n)
		}
		if !errors.Is(err, codecplugins.ErrCorrupt) {
			t.Fatalf("%s: truncated input error %v does not wrap ErrCorrupt", c.Name(), err)
		}
	}
}

// Garbage decodes random bytes at many lengths and value counts; each call
// must return values or an error, never panic.
func Garbage(t *testing.T, c codecplugins.Codec, rng *rand.Rand) {
	t.Helper()
	bs := c.BlockSize()
	dst := make([]uint32, bs)
	for i := 0; i < 2000; i++ {
		src := make([]byte, rng.IntN(8*bs+16))
		for j := range src {
			src[j] = byte(rng.Uint32())
		}
		n := rng.IntN(bs + 1)
		_ = c.DecodeBlock(dst, src, n)
	}
}

// Fuzz decodes data as a block of n values and requires no panic; fuzz
// targets call it. n is folded into [0, BlockSize].
func Fuzz(c codecplugins.Codec, data []byte, n int) {
	bs := c.BlockSize()
	if n < 0 {
		n = -n
	}
	n %= bs + 1
	dst := make([]uint32, n)
	src := append([]byte(nil), data...)
	if err := c.DecodeBlock(dst, src, n); err != nil {
		if !errors.Is(err, codecplugins.ErrCorrupt) {
			panic(fmt.Sprintf("%s: error %v does not wrap ErrCorrupt", c.Name(), err))
		}
		return
	}
	// Whatever decoded must survive a round trip.
	enc := c.AppendBlock(nil, dst)
	back := make([]uint32, n)
	if err := c.DecodeBlock(back, enc, n); err != nil {
		panic(fmt.Sprintf("%s: re-encoded block does not decode: %v", c.Name(), err))
	}
	for i := range back {
		if back[i] != dst[i] {
			panic(fmt.Sprintf("%s: round trip of decoded garbage differs at %d", c.Name(), i))
		}
	}
}

const poison = 0xDEADBEEF

func poisoned(n int) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = poison
	}
	return v
}

func sizes(bs int) []int {
	s := []int{0, 1, 2, 3, 7, 16, bs - 1, bs}
	out := s[:0]
	seen := map[int]bool{}
	for _, n := range s {
		if n >= 0 && n <= bs && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func cuts(n int) []int {
	if n <= 16 {
		c := make([]int, n)
		for i := range c {
			c[i] = i
		}
		return c
	}
	return []int{0, 1, 2, 3, 4, n / 4, n / 2, n - 5, n - 4, n - 3, n - 2, n - 1}
}

func mask(w int) uint64 { return 1<<uint(w) - 1 }

func checkEqual(t *testing.T, name string, got, want []uint32) {
	t.Helper()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: Decode(Encode(v))[%d] = %d, want %d (n=%d)", name, i, got[i], want[i], len(want))
		}
	}
}
