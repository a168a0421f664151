package simd

import "testing"

func TestSetCapsAndRestores(t *testing.T) {
	ls := Levels()
	if ls[0] != Go || ls[len(ls)-1] != Current() {
		t.Fatalf("Levels() = %v with current level %v: want Go up to the current one", ls, Current())
	}
	tests := []struct {
		set, want Level
	}{
		{Go, Go},
		{AVX2 + 1, ls[len(ls)-1]}, // above every level: capped
	}
	for _, tt := range tests {
		var got Level
		before := Current()
		Run(tt.set, func() { got = Current() })
		if got != tt.want {
			t.Errorf("Run(%v): level %v, want %v", tt.set, got, tt.want)
		}
		if Current() != before {
			t.Errorf("Run(%v) left the level at %v, want %v", tt.set, Current(), before)
		}
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		l    Level
		want string
	}{
		{Go, "go"}, {SSE, "sse"}, {AVX2, "avx2"}, {7, "Level(7)"},
	}
	for _, tt := range tests {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("Level(%d).String() = %q, want %q", uint8(tt.l), got, tt.want)
		}
	}
}
