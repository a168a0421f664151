//go:build !amd64 || purego

package pfor

// scatter writes each of f's exceptions' high parts plus one into patch
// at its position and returns their sum; f's positions are checked. This
// build has no assembly.
func scatter(patch *[blockLen]uint32, f *fastBlock) uint64 { return scatterGo(patch, f) }

// patchBlock adds f's exceptions to dst, f's slots decoded; f's
// positions are checked. This build has no assembly.
func patchBlock(dst *[blockLen]uint32, f *fastBlock) { patchValuesGo(dst[:], f) }
