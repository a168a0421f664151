package gpu

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestQueryKernelsGenerated requires query_kernels.go to be what
// internal/kernelgen writes from kernels/query.cu today: a kernel added,
// removed or changed in the source fails here until go generate runs.
func TestQueryKernelsGenerated(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found: cannot regenerate")
	}
	out := filepath.Join(t.TempDir(), "query_kernels.go")
	cmd := exec.Command(goTool, "run", "../internal/kernelgen", "-cu", "kernels/query.cu", "-pkg", "gpu",
		"-list", "queryKernels", "-ptr", "devPtr", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kernelgen: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("query_kernels.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("query_kernels.go is stale: run go generate ./gpu")
	}
}
