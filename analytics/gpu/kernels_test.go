package gpu

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/internal/kernelgen/kernelcheck"
)

// TestKernelsListed checks that UploadCorpus loads every kernel of the
// committed analytics.ptx, and only those.
func TestKernelsListed(t *testing.T) {
	ptx, err := kernelFS.ReadFile("kernels/analytics.ptx")
	if err != nil {
		t.Fatal(err)
	}
	entries := slices.Sorted(maps.Keys(kernelcheck.Entries(ptx)))
	listed := slices.Sorted(slices.Values(analyticsKernels))
	if !slices.Equal(entries, listed) {
		t.Errorf("analytics.ptx has kernels %v, analyticsKernels lists %v", entries, listed)
	}
}

// TestLaunchesMatchPTX checks every launch of the package against the
// committed analytics.ptx: a kernel of it, one 8-byte argument per
// parameter, and every kernel launched.
func TestLaunchesMatchPTX(t *testing.T) {
	ptx, err := kernelFS.ReadFile("kernels/analytics.ptx")
	if err != nil {
		t.Fatal(err)
	}
	if err := kernelcheck.Check(".", ptx); err != nil {
		t.Error(err)
	}
}

// TestAnalyticsKernelsGenerated requires analytics_kernels.go to be what
// internal/kernelgen writes from kernels/analytics.cu today: a kernel
// added, removed or changed in the source fails here until go generate
// runs.
func TestAnalyticsKernelsGenerated(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found: cannot regenerate")
	}
	out := filepath.Join(t.TempDir(), "analytics_kernels.go")
	cmd := exec.Command(goTool, "run", "../../internal/kernelgen", "-cu", "kernels/analytics.cu", "-pkg", "gpu",
		"-list", "analyticsKernels", "-ptr", "devPtr", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kernelgen: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("analytics_kernels.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("analytics_kernels.go is stale: run go generate ./analytics/gpu")
	}
}
