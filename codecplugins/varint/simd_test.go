package varint

import (
	"runtime"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins/internal/gentest"
)

// TestSIMDGeneratedUpToDate requires the assembly and its stubs to be what
// gensimd writes today.
func TestSIMDGeneratedUpToDate(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the assembly is for amd64")
	}
	gentest.UpToDateFiles(t, "./internal/gensimd", map[string]string{
		"out":   "varint_amd64.s",
		"stubs": "varint_amd64_stubs.go",
	})
}
