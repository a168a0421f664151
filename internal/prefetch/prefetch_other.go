//go:build !amd64 || purego

// Package prefetch asks the CPU to start loading a cache line ahead of
// its use, for the loops whose next reads are known a few steps early
// (norms in the query loops, the lexicon in a query's term lookups).
package prefetch

import "unsafe"

// T0 does nothing where no prefetch instruction is wired up.
func T0(unsafe.Pointer) {}

// Indexed4 does nothing where no prefetch instruction is wired up.
func Indexed4(unsafe.Pointer, []uint32) {}
