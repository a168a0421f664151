//go:build amd64 && !purego

package index

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// windowsRef is windows in plain Go: the reference the assembly must match.
func windowsRef(a, b []uint32, i, j int) (ri, rj, lane int) {
	for i+8 <= len(a) && j+8 <= len(b) {
		for k := range 8 {
			if slices.Contains(b[j:j+8], a[i+k]) {
				return i, j, k
			}
		}
		if a[i+7] < b[j+7] {
			i += 8
		} else {
			j += 8
		}
	}
	return i, j, -1
}

// ascending draws n distinct ascending docids, each gap 1 to maxGap (the
// top bit reached now and then, where a signed compare would go wrong).
func ascending(r *rand.Rand, n int, maxGap uint32) []uint32 {
	out := make([]uint32, n)
	d := uint32(r.IntN(4))
	if r.IntN(4) == 0 {
		d = 1<<31 - uint32(r.IntN(1000))
	}
	for k := range out {
		d += 1 + uint32(r.IntN(int(maxGap)))
		out[k] = d
	}
	return out
}

func checkMeetWindows(t *testing.T, a, b []uint32, i, j int) {
	t.Helper()
	gi, gj, gl := windows(a, b, i, j)
	wi, wj, wl := windowsRef(a, b, i, j)
	if gi != wi || gj != wj || gl != wl {
		t.Fatalf("windows(%v, %v, %d, %d) = %d, %d, %d; want %d, %d, %d", a, b, i, j, gi, gj, gl, wi, wj, wl)
	}
}

// TestWindows compares the assembly with windowsRef on random runs of
// every density ratio, from every start.
func TestWindows(t *testing.T) {
	if !haveWindows {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 3000 {
		a := ascending(r, r.IntN(140), 1+uint32(r.IntN(40)))
		b := ascending(r, r.IntN(140), 1+uint32(r.IntN(40)))
		if trial%3 == 0 && len(a) > 0 && len(b) > 0 {
			// Line b up with a so that matches are common.
			copy(b, a[:min(len(a), len(b))])
			slices.Sort(b)
			b = slices.Compact(b)
		}
		checkMeetWindows(t, a, b, r.IntN(len(a)+1), r.IntN(len(b)+1))
	}
}

// FuzzWindows compares the assembly with windowsRef on runs the fuzzer
// builds from gaps.
func FuzzWindows(f *testing.F) {
	if !haveWindows {
		f.Skip("no AVX2")
	}
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, uint8(10), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, gaps []byte, split, i, j uint8) {
		var a, b []uint32
		var da, db uint32
		for k, g := range gaps {
			if k < int(split) {
				da += uint32(g) + 1
				a = append(a, da)
			} else {
				db += uint32(g) + 1
				b = append(b, db)
			}
		}
		checkMeetWindows(t, a, b, min(int(i), len(a)), min(int(j), len(b)))
	})
}
