//go:build !amd64 || purego

package pfor

// patchedPrefix decodes f, a full block with exceptions, into running
// sums from base in dst and returns the sum of its high parts plus one;
// it reports false where the positions do not increase strictly below
// blockLen. This build has no assembly.
func patchedPrefix(dst *[blockLen]uint32, f *fastBlock, base uint32) (uint64, bool) {
	var patch [blockLen]uint32
	return patchedPrefixGo(dst, f, base, &patch)
}

// patchBlock adds f's exceptions to dst, f's slots decoded; it reports
// false where the positions do not increase strictly below blockLen. This
// build has no assembly.
func patchBlock(dst *[blockLen]uint32, f *fastBlock) bool { return patchValuesGo(dst[:], f) }
