//go:build amd64 && !purego

// Package prefetch asks the CPU to start loading a cache line ahead of
// its use, for the loops whose next reads are known a few steps early
// (norms in the query loops, the lexicon in a query's term lookups).
package prefetch

import "unsafe"

// T0 asks the CPU to bring the cache line holding p into its caches
// (PREFETCHT0); it neither reads nor faults.
//
//go:noescape
func T0(p unsafe.Pointer)

// Indexed4 asks for the cache lines of base's 4-byte elements at the
// indices idx, as T0 does for each: one call for a run of indices, which
// a loop would pay a call apiece.
//
//go:noescape
func Indexed4(base unsafe.Pointer, idx []uint32)
