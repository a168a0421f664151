//go:build !unix

package codectest

import "slices"

// guarded calls f with a copy of src; this build has no guard pages.
func guarded(src []byte, f func(buf []byte)) { f(slices.Clone(src)) }
