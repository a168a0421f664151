//go:build amd64 && !purego

package index

import "golang.org/x/sys/cpu"

// haveWindows is whether Meet uses windowsAVX2: the CPU has AVX2 (tests
// turn it off to run the scalar loop alone).
var haveWindows = cpuWindows

// cpuWindows is whether this CPU has AVX2, which windowsAVX2 needs.
var cpuWindows = cpu.X86.HasAVX2

// windows steps through a[i:] and b[j:], two ascending runs of distinct
// docids, eight docids of each at a time: each window of a is compared
// with each window of b, all 64 pairs in one AVX2 step, and the window
// whose last docid is smaller moves on. It stops at the first window pair
// with a docid in both, returning the windows' starts and the lowest lane
// of a's window that b's holds, or, lane -1, where either run has fewer
// than eight docids left (or this CPU lacks AVX2). Every docid of a it
// steps past is in no docid of b at or after j: Meet's scan resumes from
// what it returns.
func windows(a, b []uint32, i, j int) (ri, rj, lane int) {
	if !haveWindows || i+8 > len(a) || j+8 > len(b) {
		return i, j, -1
	}
	return windowsAVX2(&a[0], &b[0], len(a), len(b), i, j)
}

// windowsAVX2 is windows on AVX2; it trusts i+8 <= na and j+8 <= nb.
//
//go:noescape
func windowsAVX2(a, b *uint32, na, nb, i, j int) (ri, rj, lane int)
