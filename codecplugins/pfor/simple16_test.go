package pfor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestS16Layouts(t *testing.T) {
	seen := map[string]bool{}
	for sel, widths := range s16Layouts {
		total := 0
		for _, w := range widths {
			total += int(w)
		}
		if total > 28 || len(widths) == 0 {
			t.Errorf("selector %d: %d fields using %d bits, want 1+ fields in at most 28 bits", sel, len(widths), total)
		}
		key := fmt.Sprint(widths)
		if seen[key] {
			t.Errorf("selector %d repeats layout %v", sel, widths)
		}
		seen[key] = true
	}
}

func TestS16Format(t *testing.T) {
	tests := []struct {
		v    []uint32
		want []byte
	}{
		{nil, nil},
		{[]uint32{1, 0, 1}, []byte{0x05, 0, 0, 0}},                                                                 // selector 0, partly used
		{[]uint32{2, 3}, []byte{0x0e, 0, 0, 0x10}},                                                                 // selector 1
		{[]uint32{s16Max}, []byte{0xff, 0xff, 0xff, 0xff}},                                                         // selector 15
		{[]uint32{1 << 14, 0}, []byte{0, 0x40, 0, 0xf0, 0, 0, 0, 0}},                                               // selectors 15, 0
		{[]uint32{s16Max, 1, 0, s16Max}, []byte{0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 0xe0, 0xff, 0xff, 0xff, 0xff}}, // selectors 15, 14, 15
	}
	for _, tt := range tests {
		if got := s16Append(nil, tt.v); !slices.Equal(got, tt.want) {
			t.Errorf("s16Append(%v) = %x, want %x", tt.v, got, tt.want)
		}
		// Decoding gives the values back, s16Max's word 0xFFFFFFFF (package
		// simple's escape) included.
		got := make([]uint32, len(tt.v)+s16MaxFields-1)
		if !s16Decode(got, len(tt.v), tt.want) || !slices.Equal(got[:len(tt.v)], tt.v) {
			t.Errorf("s16Decode(%x) = %v, want %v", tt.want, got[:len(tt.v)], tt.v)
		}
	}
}

func TestS16RoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	for _, maxBits := range []int{1, 2, 3, 5, 9, 14, 20, 28} {
		for _, n := range []int{1, 2, 7, 28, 29, 100, 256} {
			t.Run(fmt.Sprintf("bits=%d/n=%d", maxBits, n), func(t *testing.T) {
				v := make([]uint32, n)
				for i := range v {
					v[i] = uint32(rng.Uint64() & (1<<rng.IntN(maxBits+1) - 1))
				}
				enc := s16Append(nil, v)
				if got := s16Len(v); got != len(enc) {
					t.Fatalf("s16Len(v) = %d, want len(s16Append(v)) = %d", got, len(enc))
				}
				got := make([]uint32, n+s16MaxFields-1)
				if !s16Decode(got, n, enc) {
					t.Fatalf("s16Decode of %d-byte encoding: reported truncation", len(enc))
				}
				if !slices.Equal(got[:n], v) {
					t.Fatalf("s16Decode(s16Append(%v)) = %v", v, got)
				}
				if s16Decode(got, n, enc[:len(enc)-1]) {
					t.Fatalf("s16Decode of truncated encoding reported success")
				}
			})
		}
	}
}
