package hugemem

import (
	"math"
	"slices"
	"testing"
	"unsafe"
)

func TestMakeCopyFree(t *testing.T) {
	for _, n := range []int{1, 3, PageSize / 4, PageSize/4 + 1, 3 * PageSize / 4} {
		v := make([]uint32, n)
		for i := range v {
			v[i] = uint32(i * 7)
		}
		c, err := Copy(v)
		if err != nil {
			t.Fatal(err)
		}
		if len(c) != n || cap(c) != n || !slices.Equal(c, v) {
			t.Fatalf("Copy of %d values: len %d cap %d, equal %v", n, len(c), cap(c), slices.Equal(c, v))
		}
		if p := uintptr(unsafe.Pointer(&c[0])); p%PageSize != 0 && Total() != 0 {
			t.Errorf("Copy of %d values at %#x: not on a %d-byte boundary", n, p, PageSize)
		}
		c[n-1]++ // writable
		if err := Free(c); err != nil {
			t.Fatal(err)
		}
		z, err := Make[float32](n)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(z, func(x float32) bool { return x != 0 }) {
			t.Fatalf("Make(%d) is not zeroed", n)
		}
		if err := Free(z); err != nil {
			t.Fatal(err)
		}
	}
}

func TestEmptyAndTooLarge(t *testing.T) {
	if v, err := Make[uint64](0); v != nil || err != nil {
		t.Fatalf("Make(0) = %v, %v; want nil, nil", v, err)
	}
	if v, err := Copy([]byte{}); v != nil || err != nil {
		t.Fatalf("Copy(empty) = %v, %v; want nil, nil", v, err)
	}
	if err := Free[byte](nil); err != nil {
		t.Fatalf("Free(nil) = %v", err)
	}
	for _, n := range []int{-1, math.MaxInt} {
		if _, err := Make[uint64](n); err == nil {
			t.Fatalf("Make(%d): no error", n)
		}
	}
}
