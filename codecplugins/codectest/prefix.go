package codectest

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// RunPrefix checks c's DecodeBlockPrefix against its own DecodeBlock
// followed by a 64-bit running sum: the same sums for every size and bit
// width Run tries, from a base of 0, a random base and bases near 2^32; an
// error wrapping ErrCorrupt exactly where a sum exceeds 2^32-1, on
// truncated input and on whatever DecodeBlock rejects; no panic on garbage.
func RunPrefix(t *testing.T, c codecplugins.PrefixDecoder) {
	t.Helper()
	bs := c.BlockSize()
	rng := rand.New(rand.NewPCG(3, uint64(bs)))
	var lists [][]uint32
	for _, n := range sizes(bs) {
		lists = append(lists,
			Fill(n, func(int) uint32 { return uint32(rng.IntN(8)) }),
			Fill(n, func(int) uint32 { return uint32(rng.ExpFloat64() * 20) }))
	}
	for w := 0; w <= 32; w++ {
		lists = append(lists, Fill(bs, func(int) uint32 { return uint32(rng.Uint64() & mask(w)) }))
	}
	for _, v := range lists {
		var total uint64
		for _, x := range v {
			total += uint64(x)
		}
		bases := []uint32{0, rng.Uint32(), math.MaxUint32}
		if total <= math.MaxUint32 {
			bases = append(bases, uint32(math.MaxUint32-total)) // the largest that fits
		}
		enc := c.AppendBlock(nil, v)
		for _, base := range bases {
			t.Run(fmt.Sprintf("n=%d/width=%d/base=%d", len(v), width(v), base), func(t *testing.T) {
				prefixCase(t, c, v, enc, base)
			})
		}
	}
	t.Run("garbage", func(t *testing.T) {
		dst := make([]uint32, bs)
		for range 2000 {
			src := make([]byte, rng.IntN(8*bs+16))
			for j := range src {
				src[j] = byte(rng.Uint32())
			}
			err := c.DecodeBlockPrefix(dst, src, rng.IntN(bs+1), rng.Uint32())
			if err != nil && !errors.Is(err, codecplugins.ErrCorrupt) {
				t.Fatalf("%s: error %v does not wrap ErrCorrupt", c.Name(), err)
			}
		}
	})
}

// prefixCase checks one encoded block enc of values v from one base.
func prefixCase(t *testing.T, c codecplugins.PrefixDecoder, v []uint32, enc []byte, base uint32) {
	t.Helper()
	n := len(v)
	want := make([]uint32, n)
	sum := uint64(base)
	for i, x := range v {
		sum += uint64(x)
		want[i] = uint32(sum)
	}
	got := poisoned(n + 8)
	err := c.DecodeBlockPrefix(got, enc, n, base)
	if sum > math.MaxUint32 {
		if !errors.Is(err, codecplugins.ErrCorrupt) {
			t.Fatalf("%s: DecodeBlockPrefix with sums past 2^32-1 = %v, want ErrCorrupt", c.Name(), err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: DecodeBlockPrefix(n=%d): %v", c.Name(), n, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: DecodeBlockPrefix(n=%d, base=%d)[%d] = %d, want %d", c.Name(), n, base, i, got[i], want[i])
		}
	}
	for i := n; i < len(got); i++ {
		if got[i] != poison {
			t.Fatalf("%s: DecodeBlockPrefix(n=%d) wrote past dst[:n] at %d", c.Name(), n, i)
		}
	}
	if n == 0 {
		return
	}
	for _, cut := range cuts(len(enc)) {
		buf := append([]byte(nil), enc[:cut]...)
		if err := c.DecodeBlockPrefix(poisoned(n), buf, n, base); !errors.Is(err, codecplugins.ErrCorrupt) {
			t.Fatalf("%s: DecodeBlockPrefix of a %d-byte prefix of %d bytes = %v, want ErrCorrupt", c.Name(), cut, len(enc), err)
		}
	}
}

func width(v []uint32) int {
	var or uint32
	for _, x := range v {
		or |= x
	}
	return bits.Len32(or)
}
