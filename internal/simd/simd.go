// Package simd chooses, once for the process, the widest instruction set
// the assembly kernels (the codecs' decoders, BM25's block scoring) may
// use, and lets tests and benchmarks lower that choice to run the same
// kernel on another path.
//
// Levels are cumulative: a decoder at level SSE may use any instruction up
// to SSE4.1 (the kernels use SSE2 and SSSE3), one at level AVX2 also AVX and
// AVX2. Go is the pure-Go reference path, the only one off amd64 and under
// the purego build tag.
package simd

import "fmt"

// Level is an instruction-set level a decoder may use.
type Level uint8

// The levels, from the pure-Go path up.
const (
	Go Level = iota
	SSE
	AVX2
)

func (l Level) String() string {
	switch l {
	case Go:
		return "go"
	case SSE:
		return "sse"
	case AVX2:
		return "avx2"
	}
	return fmt.Sprintf("Level(%d)", uint8(l))
}

// top is the highest level this CPU and build support; detect is in the
// per-architecture files.
var top = detect()

// current is the level decoders use now: top unless a test lowered it.
var current = top

// Current returns the level the decoders use now.
func Current() Level { return current }

// Set makes decoders use level l, capped at the highest level this CPU and
// build support, and returns the level they used before. It is meant for
// tests and benchmarks: decoders read the level on every call, so it must
// not change while any of them runs.
func Set(l Level) Level {
	prev := current
	current = min(l, top)
	return prev
}

// Levels returns every level this CPU and build support, from Go up.
func Levels() []Level {
	var ls []Level
	for l := Go; l <= top; l++ {
		ls = append(ls, l)
	}
	return ls
}

// Run calls f with the decoders at level l (capped as by Set), then restores
// the level they had.
func Run(l Level, f func()) {
	defer Set(Set(l))
	f()
}
