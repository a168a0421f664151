package bitio

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestWriter(t *testing.T) {
	type op struct {
		unary bool
		v     uint64
		nb    uint
	}
	tests := []struct {
		name string
		ops  []op
		want []byte
	}{
		{"empty", nil, nil},
		{"one bit", []op{{v: 1, nb: 1}}, []byte{0x01}},
		{"lsb first", []op{{v: 0b101, nb: 3}, {v: 0b11, nb: 2}}, []byte{0b11101}},
		{"across bytes", []op{{v: 0x1FF, nb: 9}}, []byte{0xFF, 0x01}},
		{"word flush", []op{{v: 0xABCDEF12, nb: 32}, {v: 1, nb: 1}}, []byte{0x12, 0xEF, 0xCD, 0xAB, 0x01}},
		{"33 bits after 31", []op{{v: 0, nb: 31}, {v: 1 << 32, nb: 33}}, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}},
		{"unary 0", []op{{unary: true, v: 0}}, []byte{0x01}},
		{"unary 3", []op{{unary: true, v: 3}}, []byte{0x08}},
		{"unary 40", []op{{unary: true, v: 40}}, []byte{0, 0, 0, 0, 0, 0x01}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := NewWriter([]byte{0xAA})
			for _, o := range tt.ops {
				if o.unary {
					w.Unary(o.v)
				} else {
					w.Write(o.v, o.nb)
				}
			}
			want := append([]byte{0xAA}, tt.want...)
			if got := w.Finish(); !slices.Equal(got, want) {
				t.Errorf("Finish() = %x, want %x", got, want)
			}
		})
	}
}

func TestWindow(t *testing.T) {
	src := []byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0x10}
	tests := []struct {
		p    uint
		want uint64
	}{
		{0, 0xEFCDAB8967452301},
		{4, 0x0EFCDAB896745230},
		{8, 0x10EFCDAB89674523},
		{13, 0x00877E6D5C4B3A29},
		{64, 0x10},
		{68, 0x1},
		{72, 0},
		{1000, 0},
	}
	for _, tt := range tests {
		if got := Window(src, tt.p); got != tt.want {
			t.Errorf("Window(%x, %d) = %#x, want %#x", src, tt.p, got, tt.want)
		}
	}
}

// TestRoundTrip writes random fields and reads each back with Window.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var w Writer
	type field struct {
		v  uint64
		nb uint
	}
	var fields []field
	for range 1000 {
		nb := uint(rng.IntN(34))
		v := rng.Uint64() & (1<<nb - 1)
		w.Write(v, nb)
		fields = append(fields, field{v, nb})
	}
	buf := w.Finish()
	p := uint(0)
	for i, f := range fields {
		if got := Window(buf, p) & (1<<f.nb - 1); got != f.v {
			t.Fatalf("field %d at bit %d = %#x, want %#x", i, p, got, f.v)
		}
		p += f.nb
	}
	if want := (p + 7) / 8; uint(len(buf)) != want {
		t.Errorf("len(Finish()) = %d, want %d", len(buf), want)
	}
}
