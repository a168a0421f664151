package gpu

import "time"

// Intersector runs list intersections on a GPU (`gpusearch bench
// intersect --engine gpu`).
type Intersector struct {
	dev *Device
	be  *deviceBackend
}

// IntersectLists are lists resident on an Intersector's GPU, with the
// tables the algorithms probe.
type IntersectLists struct {
	x *Intersector
	l *isectLists
}

// NewIntersector opens the GPU and loads the kernels. Errors wrap
// ErrNoDevice or ErrBadPTX, and ErrNoCUDA in a build without the cuda tag.
func NewIntersector(opts DeviceOptions) (*Intersector, error) {
	d, be, err := openBackend(opts)
	if err != nil {
		return nil, err
	}
	return &Intersector{dev: d, be: be}, nil
}

// Upload copies 2 to 8 sorted lists to the GPU, with the hash table and
// bitset of every list but the shortest (as query/intersect builds them).
func (x *Intersector) Upload(lists [][]uint32) (*IntersectLists, error) {
	l, err := uploadIntersect(x.be, lists)
	if err != nil {
		return nil, err
	}
	return &IntersectLists{x: x, l: l}, nil
}

// Intersect runs one of IntersectAlgorithms and returns the intersection
// and the device time of its kernels (CUDA events around them).
func (l *IntersectLists) Intersect(alg string) ([]uint32, time.Duration, error) {
	return l.l.intersect(alg, 8*max(1, l.x.be.multiprocessors()))
}

// Free releases the lists' device memory.
func (l *IntersectLists) Free() error { return l.l.free() }

// Device describes the GPU.
func (x *Intersector) Device() DeviceInfo { return x.dev.Info() }

// Close releases the GPU.
func (x *Intersector) Close() error {
	err := x.be.close()
	if cerr := x.dev.Close(); err == nil {
		err = cerr
	}
	return err
}
