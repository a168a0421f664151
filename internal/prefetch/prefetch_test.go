package prefetch

import (
	"testing"
	"unsafe"
)

// TestPrefetchReadsNothing: a prefetch changes no memory and faults on
// no address, and Indexed4 walks exactly its indices (a misread length
// or base would run off the slice and fault).
func TestPrefetchReadsNothing(t *testing.T) {
	norms := []float32{1, 2, 3, 4, 5, 6, 7, 8}
	base := unsafe.Pointer(unsafe.SliceData(norms))
	tests := []struct {
		name string
		idx  []uint32
	}{
		{"none", nil},
		{"one", []uint32{3}},
		{"all", []uint32{0, 1, 2, 3, 4, 5, 6, 7}},
		{"a view", []uint32{9, 7, 6, 9}[1:3]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Indexed4(base, tt.idx)
			for _, i := range tt.idx {
				T0(unsafe.Pointer(&norms[i]))
			}
			for i, v := range norms {
				if v != float32(i+1) {
					t.Fatalf("norms[%d] = %v after prefetching, want %v", i, v, i+1)
				}
			}
		})
	}
}
