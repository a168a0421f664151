package gpubench

import (
	"slices"
	"testing"
)

func TestBatchSizes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"1,8, 32", []int{1, 8, 32}, true},
		{"0", nil, false},
		{"x", nil, false},
	} {
		got, err := batchSizes(tt.in)
		if (err == nil) != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("batchSizes(%q) = %v, %v, want %v (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
