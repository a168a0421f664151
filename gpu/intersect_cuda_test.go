//go:build cuda

package gpu

import "testing"

// TestIntersectMatchesCPU: every algorithm on the GPU against
// query/intersect's merge, on random lists.
func TestIntersectMatchesCPU(t *testing.T) {
	x, err := NewIntersector(DeviceOptions{})
	if err != nil {
		t.Fatalf("NewIntersector: %v", err)
	}
	defer x.Close()
	checkIntersect(t, func(lists [][]uint32) (func(string) ([]uint32, error), func(), error) {
		l, err := x.Upload(lists)
		if err != nil {
			return nil, nil, err
		}
		run := func(alg string) ([]uint32, error) {
			out, _, err := l.Intersect(alg)
			return out, err
		}
		return run, func() { l.Free() }, nil
	})
}
