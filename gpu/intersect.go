package gpu

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/gpusearch/gpusearch/query/intersect"
)

// IntersectAlgorithms are the list intersection algorithms the device
// runs (kernels/query.cu, "List intersection"): the list-intersection
// report's coarse-grained SVS and ADP with the exact start, hash and
// bitmap, on the same tables as query/intersect's.
var IntersectAlgorithms = []string{"svs", "adp", "hash", "bitmap"}

// Limits of a device intersection: lists (isect_seg keeps a cursor per
// list) and candidates per SVS/ADP thread (a 32-bit mask).
const (
	isectMeta     = 8
	isectMaxLists = 8
	isectSeg      = 32
)

// isectLists are lists resident on the device, the shortest first, with
// the hash tables and bitsets of the others.
type isectLists struct {
	be                      backend
	owned                   []devPtr
	data, hstart, bits      devPtr
	meta, state, flags, out devPtr
	tileCounts, tileOffsets devPtr
	n                       int64 // candidates: the shortest list's length
	m                       int
}

// uploadIntersect copies lists to the device with the tables of every list
// but the shortest.
func uploadIntersect(be backend, lists [][]uint32) (_ *isectLists, err error) {
	if len(lists) < 2 || len(lists) > isectMaxLists {
		return nil, fmt.Errorf("gpu: intersection of %d lists (want 2 to %d)", len(lists), isectMaxLists)
	}
	lists = slices.Clone(lists)
	slices.SortStableFunc(lists, func(a, b []uint32) int { return len(a) - len(b) })
	l := &isectLists{be: be, n: int64(len(lists[0])), m: len(lists)}
	defer func() {
		if err != nil {
			l.free()
		}
	}()
	var data, hstart []uint32
	var bits []uint64
	meta := make([]uint64, isectMeta*len(lists))
	for j, list := range lists {
		mj := meta[isectMeta*j:]
		mj[0], mj[1] = uint64(len(data)), uint64(len(list))
		data = append(data, list...)
		if j == 0 {
			continue
		}
		_, shift, starts := intersect.NewHashTable(list).Layout()
		mj[2], mj[3], mj[4] = uint64(len(hstart)), uint64(len(starts)-1), uint64(shift)
		hstart = append(hstart, starts...)
		words := intersect.NewBitset(list).Words()
		mj[5], mj[6] = uint64(len(bits)), uint64(len(words))
		bits = append(bits, words...)
	}
	put := func(dst *devPtr, b []byte, size int64) error {
		p, err := be.alloc(max(size, int64(len(b)), 16))
		if err != nil {
			return err
		}
		l.owned = append(l.owned, p)
		*dst = p
		if len(b) == 0 {
			return nil
		}
		return be.upload(p, b)
	}
	tiles := (l.n + qTile - 1) / qTile
	for _, u := range []struct {
		dst  *devPtr
		b    []byte
		size int64
	}{
		{&l.data, bytesOf(data), 0}, {&l.hstart, bytesOf(hstart), 0}, {&l.bits, bytesOf(bits), 0},
		{&l.meta, bytesOf(meta), 0}, {&l.state, bytesOf([]uint32{uint32(l.n), 0}), 0},
		{&l.flags, nil, 4 * l.n}, {&l.out, nil, 4 * l.n},
		{&l.tileCounts, nil, 4 * tiles}, {&l.tileOffsets, nil, 4 * tiles},
	} {
		if err := put(u.dst, u.b, u.size); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// free releases the device memory; it is safe to call twice.
func (l *isectLists) free() error {
	err := freeAll(l.be, l.owned...)
	l.owned = nil
	return err
}

// intersect runs one algorithm and returns the intersection and the
// device time of its kernels (zero unless the backend times marks).
func (l *isectLists) intersect(alg string, gridCap int) ([]uint32, time.Duration, error) {
	grid := func(n int64) int { return gridFor(gridCap, n) }
	m := uint64(l.m)
	var find func(s stream) error
	switch alg {
	case "svs", "adp":
		adp := uint64(0)
		if alg == "adp" {
			adp = 1
		}
		find = func(s stream) error {
			return launchIsectSeg(s, grid((l.n+isectSeg-1)/isectSeg), qTile, l.data, l.meta, m, isectSeg, adp, l.flags)
		}
	case "hash":
		find = func(s stream) error {
			return launchIsectHash(s, grid(l.n), qTile, l.data, l.hstart, l.meta, m, l.flags)
		}
	case "bitmap":
		find = func(s stream) error {
			return launchIsectBitmap(s, grid(l.n), qTile, l.data, l.bits, l.meta, m, l.flags)
		}
	default:
		return nil, 0, fmt.Errorf("gpu: unknown intersection algorithm %q (want one of %v)", alg, IntersectAlgorithms)
	}
	var out []uint32
	var took time.Duration
	err := l.be.run(0, func(s stream) error {
		if l.n == 0 {
			return nil
		}
		count, total := l.state, l.state+4
		steps := []func() error{
			s.mark,
			func() error { return find(s) },
			func() error {
				return launchIsectCount(s, grid(l.n), qTile, l.flags, count, l.tileCounts)
			},
			func() error {
				return launchTileScan(s, 1, qBig, count, l.tileCounts, l.tileOffsets, total)
			},
			func() error {
				return launchIsectScatter(s, grid(l.n), qTile, l.data, l.meta, l.flags, count, l.tileOffsets, l.out)
			},
			s.mark,
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		var st [8]byte
		if err := s.download(st[:], l.state); err != nil {
			return err
		}
		k := int(binary.LittleEndian.Uint32(st[4:]))
		if int64(k) > l.n {
			return fmt.Errorf("gpu: intersection of %d candidates found %d", l.n, k)
		}
		out = make([]uint32, k)
		if err := s.download(bytesOf(out), l.out); err != nil {
			return err
		}
		d, err := s.elapsed()
		if len(d) > 0 {
			took = d[0]
		}
		return err
	})
	return out, took, err
}
