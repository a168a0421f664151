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
	UpToDateFiles(t, gen, map[string]string{"o": file})
}

// UpToDateFiles is UpToDate for a generator that writes several files:
// files maps each output flag's name (without the dash) to the file,
// relative to the test's directory, that the flag names.
func UpToDateFiles(t *testing.T, gen string, files map[string]string) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found: cannot regenerate")
	}
	dir := t.TempDir()
	args := []string{"run", gen}
	for flag, file := range files {
		args = append(args, "-"+flag, filepath.Join(dir, flag+"-"+filepath.Base(file)))
	}
	if msg, err := exec.Command(goTool, args...).CombinedOutput(); err != nil {
		t.Fatalf("go run %s: %v\n%s", gen, err, msg)
	}
	for flag, file := range files {
		want, err := os.ReadFile(filepath.Join(dir, flag+"-"+filepath.Base(file)))
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
}
