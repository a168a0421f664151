// Package gentest checks from a test that a generated source file is what
// its generator writes today, so that a stale file fails the tests rather
// than passing them with old code.
package gentest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// UpToDate runs the generator command gen (a package path for go run, such
// as "./internal/gen") with "-o" naming a temporary file, and fails t unless
// file, relative to the test's directory, matches that output byte for
// byte. It skips when the go tool is not installed.
func UpToDate(t *testing.T, gen, file string) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found: cannot regenerate")
	}
	out := filepath.Join(t.TempDir(), filepath.Base(file))
	if msg, err := exec.Command(goTool, "run", gen, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("go run %s: %v\n%s", gen, err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go generate in its package", file)
	}
}
