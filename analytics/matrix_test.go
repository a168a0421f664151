package analytics

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// randomMatrix has rows rows of up to maxRow entries each, distinct
// columns below cols in random order, and small values.
func randomMatrix(r *rand.Rand, rows, cols, maxRow int) *Matrix {
	m := &Matrix{Start: []int{0}}
	for range rows {
		n := r.IntN(maxRow + 1)
		if n > cols {
			n = cols
		}
		for _, c := range r.Perm(cols)[:n] {
			m.Col = append(m.Col, uint32(c))
			m.Val = append(m.Val, uint32(1+r.IntN(4)))
		}
		m.Start = append(m.Start, len(m.Col))
	}
	return m
}

// plainTranspose is the transpose written plainly: every (row, col, val)
// entry, sorted by column then row.
func plainTranspose(m *Matrix, cols int) *Matrix {
	type entry struct{ row, col, val uint32 }
	var es []entry
	for r := range m.Rows() {
		cs, vs := m.Row(r)
		for i, c := range cs {
			es = append(es, entry{uint32(r), c, vs[i]})
		}
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Or(cmp.Compare(a.col, b.col), cmp.Compare(a.row, b.row)) })
	t := &Matrix{Start: make([]int, cols+1), Col: []uint32{}, Val: []uint32{}}
	for _, e := range es {
		t.Start[e.col+1]++
		t.Col = append(t.Col, e.row)
		t.Val = append(t.Val, e.val)
	}
	for c := range cols {
		t.Start[c+1] += t.Start[c]
	}
	return t
}

func TestTransposeAndRank(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	tests := []struct{ rows, cols, maxRow int }{
		{0, 3, 0}, {1, 1, 1}, {3, 5, 0}, {7, 4, 4}, {50, 20, 15}, {200, 300, 60}, {1000, 50, 3},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d", tt.rows, tt.cols), func(t *testing.T) {
			m := randomMatrix(r, tt.rows, tt.cols, tt.maxRow)
			want := plainTranspose(m, tt.cols)
			got := m.Transpose(tt.cols)
			if !reflect.DeepEqual(got.Start, want.Start) || !slices.Equal(got.Col, want.Col) || !slices.Equal(got.Val, want.Val) {
				t.Fatalf("Transpose = %+v, want %+v", got, want)
			}
			ranked := got.Transpose(tt.rows)
			ranked.Rank()
			for row := range ranked.Rows() {
				cs, vs := ranked.Row(row)
				wc, _ := m.Row(row)
				if len(cs) != len(wc) {
					t.Fatalf("row %d has %d entries after Rank, want %d", row, len(cs), len(wc))
				}
				for i := 1; i < len(cs); i++ {
					if vs[i] > vs[i-1] || (vs[i] == vs[i-1] && cs[i] <= cs[i-1]) {
						t.Fatalf("row %d not ranked: %v %v", row, cs, vs)
					}
				}
			}
		})
	}
	if got := (&Matrix{}).Transpose(2); !slices.Equal(got.Start, []int{0, 0, 0}) {
		t.Errorf("transpose of the zero Matrix = %+v", got)
	}
}
