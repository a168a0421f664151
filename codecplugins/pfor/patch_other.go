//go:build !amd64 || purego

package pfor

// scatter writes each of f's exceptions' high parts plus one into patch
// at its position and returns their sum; it reports false where the
// positions do not increase strictly below blockLen. This build has no
// assembly.
func scatter(patch *[blockLen]uint32, f *fastBlock) (uint64, bool) { return scatterGo(patch, f) }

// patchBlock adds f's exceptions to dst, f's slots decoded; it reports
// false where the positions do not increase strictly below blockLen. This
// build has no assembly.
func patchBlock(dst *[blockLen]uint32, f *fastBlock) bool { return patchValuesGo(dst[:], f) }
