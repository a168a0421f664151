//go:build !cuda

package gpu

import "time"

// Intersector runs list intersections on a GPU. This build has no CUDA
// support.
type Intersector struct{}

// IntersectLists are lists resident on a GPU.
type IntersectLists struct{}

// NewIntersector opens the GPU. Without the cuda build tag it always fails
// with ErrNoCUDA.
func NewIntersector(opts DeviceOptions) (*Intersector, error) { return nil, ErrNoCUDA }

// Upload copies sorted lists to the GPU.
func (x *Intersector) Upload(lists [][]uint32) (*IntersectLists, error) { return nil, ErrNoCUDA }

// Intersect runs one of IntersectAlgorithms.
func (l *IntersectLists) Intersect(alg string) ([]uint32, time.Duration, error) {
	return nil, 0, ErrNoCUDA
}

// Free releases the lists' device memory.
func (l *IntersectLists) Free() error { return nil }

// Device describes the GPU.
func (x *Intersector) Device() DeviceInfo { return DeviceInfo{} }

// Close releases the GPU.
func (x *Intersector) Close() error { return nil }
