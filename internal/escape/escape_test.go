package escape

import (
	"testing"
	"unicode"
)

func TestPercent(t *testing.T) {
	spaceOrPercent := func(r rune) bool { return r == '%' || unicode.IsSpace(r) }
	for _, tt := range []struct {
		name string
		in   string
		also func(rune) bool
		want string
	}{
		{"plain", "http://a/b?c=d", nil, "http://a/b?c=d"},
		{"newline", "a\nb", nil, "a%0Ab"},
		{"terminal escape", "t\x1b[2J", nil, "t%1B[2J"},
		{"invalid utf-8", "a\xffb", nil, "a%FFb"},
		{"unicode prints", "héllo 世界", nil, "héllo 世界"},
		{"space kept", "my page", nil, "my page"},
		{"space and percent also", "my 100%", spaceOrPercent, "my%20100%25"},
		{"no-break space also", "a\u00a0b", spaceOrPercent, "a%C2%A0b"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percent(tt.in, tt.also); got != tt.want {
				t.Errorf("Percent(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
