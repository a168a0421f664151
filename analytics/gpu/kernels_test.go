package gpu

import (
	"regexp"
	"slices"
	"testing"
)

// TestKernelsListed checks that UploadCorpus loads every kernel of the
// committed analytics.ptx, and only those.
func TestKernelsListed(t *testing.T) {
	ptx, err := kernelFS.ReadFile("kernels/analytics.ptx")
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	for _, m := range regexp.MustCompile(`\.entry (\w+)\(`).FindAllSubmatch(ptx, -1) {
		entries = append(entries, string(m[1]))
	}
	slices.Sort(entries)
	listed := slices.Sorted(slices.Values(kernels))
	if !slices.Equal(entries, listed) {
		t.Errorf("analytics.ptx has kernels %v, kernels lists %v", entries, listed)
	}
}
