//go:build !amd64 || purego

package pfor

import "github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"

// patchedPrefix decodes f, a full block with exceptions, into running
// sums from base in dst and returns the sum of its high parts plus one;
// it reports false where the positions do not increase strictly below
// blockLen. This build has no assembly.
func patchedPrefix(dst *[blockLen]uint32, f *fastBlock, base uint32) (uint64, bool) {
	var patch [blockLen]uint32
	return patchedPrefixGo(dst, f, base, &patch)
}

// decodePatched decodes f, a full block with exceptions, into dst; it
// reports false where the positions do not increase strictly below
// blockLen. This build has no assembly.
func decodePatched(dst *[blockLen]uint32, f *fastBlock) bool {
	bitpack.UnpackVertical(dst, f.slots, f.b)
	return patchValuesGo(dst[:], f)
}
