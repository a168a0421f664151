//go:build amd64 && !purego

package simd

import "golang.org/x/sys/cpu"

// detect reads the CPU's features; x/sys/cpu already requires the operating
// system to save the AVX registers before it reports AVX2.
func detect() Level {
	switch {
	case cpu.X86.HasAVX2:
		return AVX2
	case cpu.X86.HasSSE41:
		return SSE
	}
	return Go
}
