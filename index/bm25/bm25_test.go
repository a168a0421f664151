package bm25

import (
	"math"
	"testing"
)

func TestTermScoreMatchesFormula(t *testing.T) {
	p := DefaultParams()
	tests := []struct {
		name    string
		n, df   uint64
		tf, len uint32
		avg     float32
	}{
		{"rare term short doc", 1000, 3, 1, 50, 100},
		{"common term long doc", 1000, 900, 7, 400, 100},
		{"df equals n", 10, 10, 2, 10, 10},
		{"empty doc", 5, 1, 1, 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idf := math.Log(1 + (float64(tt.n)-float64(tt.df)+0.5)/(float64(tt.df)+0.5))
			k1, b := float64(p.K1), float64(p.B)
			want := idf * float64(tt.tf) * (k1 + 1) / (float64(tt.tf) + k1*(1-b+b*float64(tt.len)/float64(tt.avg)))
			got := p.TermScore(IDF(tt.n, tt.df), tt.tf, p.Norm(tt.len, tt.avg))
			if math.Abs(float64(got)-want) > 1e-5*math.Abs(want) {
				t.Errorf("TermScore = %v, want %v", got, want)
			}
			if got <= 0 {
				t.Errorf("TermScore = %v, want > 0", got)
			}
		})
	}
}

func TestScoreGrowsWithTFAndShrinksWithLength(t *testing.T) {
	p := DefaultParams()
	idf := IDF(100, 10)
	if a, b := p.TermScore(idf, 1, p.Norm(10, 10)), p.TermScore(idf, 2, p.Norm(10, 10)); !(b > a) {
		t.Errorf("score(tf=2) = %v not above score(tf=1) = %v", b, a)
	}
	if a, b := p.TermScore(idf, 1, p.Norm(10, 10)), p.TermScore(idf, 1, p.Norm(100, 10)); !(a > b) {
		t.Errorf("score(len=100) = %v not below score(len=10) = %v", b, a)
	}
}
