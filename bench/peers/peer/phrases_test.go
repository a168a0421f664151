package peer

import (
	"slices"
	"testing"
)

func TestPhrases(t *testing.T) {
	tests := []struct {
		name   string
		titles []string
		want   []string // sorted
	}{
		{"two words", []string{"Vec collections"}, []string{"Vec collections"}},
		{"runs of two and three", []string{"a quick fox"}, []string{"a quick", "a quick fox", "quick fox"}},
		{"text between words kept", []string{"subtle - crypto/subtle"}, []string{"crypto/subtle", "subtle - crypto"}},
		{"quotes left out", []string{`say "hi"`}, nil},
		{"repeated terms left out", []string{"run running"}, nil},
		{"same terms count once", []string{"Quick fox", "quick foxes"}, []string{"Quick fox"}},
		{"one word", []string{"Rust", ""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Phrases(tt.titles, 100, 1)
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Phrases(%q) = %q, want %q", tt.titles, got, tt.want)
			}
		})
	}
}

func TestPhrasesSeeded(t *testing.T) {
	titles := []string{"alpha beta gamma delta", "epsilon zeta eta theta", "iota kappa lambda mu"}
	a, b := Phrases(titles, 5, 7), Phrases(titles, 5, 7)
	if len(a) != 5 || !slices.Equal(a, b) {
		t.Errorf("Phrases twice with one seed = %q and %q, want the same 5", a, b)
	}
	if all := Phrases(titles, 100, 7); len(all) != 15 {
		t.Errorf("Phrases kept %d of 15 candidates", len(all))
	}
}
