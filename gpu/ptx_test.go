package gpu

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestPTXFresh fails when a committed .ptx was not compiled from the
// current .cu (or a .cu has no .ptx): run make ptx on a machine with nvcc
// and commit the result. It skips until the first PTX is committed.
func TestPTXFresh(t *testing.T) {
	sources, err := filepath.Glob("kernels/*.cu")
	if err != nil || len(sources) == 0 {
		t.Fatalf("no kernels/*.cu (err %v)", err)
	}
	embedded, err := fs.Glob(kernelFS, "kernels/*.ptx")
	if err != nil {
		t.Fatal(err)
	}
	if len(embedded) == 0 {
		t.Skip("no kernels/*.ptx committed yet: make ptx needs nvcc (see docs/gpu-decode.md)")
	}
	for _, src := range sources {
		name := strings.TrimSuffix(filepath.Base(src), ".cu")
		t.Run(name, func(t *testing.T) {
			cu, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(cu)
			want := hex.EncodeToString(sum[:])
			ptx, err := kernelFS.ReadFile("kernels/" + name + ".ptx")
			if err != nil {
				t.Fatalf("%s has no committed PTX: run make ptx", src)
			}
			if got, ok := recordedHash(ptx); got != want {
				t.Errorf("kernels/%s.ptx records source sha256 %q (header found: %v), %s is %s: run make ptx", name, got, ok, src, want)
			}
		})
	}
}

func TestRecordedHash(t *testing.T) {
	h := strings.Repeat("ab", 32)
	tests := []struct {
		name string
		ptx  string
		want string
		ok   bool
	}{
		{"header", hashPrefix + h + "\n//\n.version 8.0\n", h, true},
		{"crlf", hashPrefix + h + "\r\n.version 8.0\n", h, true},
		{"only-line", hashPrefix + h, h, true},
		{"missing", "//\n.version 8.0\n", "", false},
		{"short-hash", hashPrefix + "abcd\n", "", false},
		{"not-first-line", "\n" + hashPrefix + h + "\n", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := recordedHash([]byte(tt.ptx))
			if got != tt.want || ok != tt.ok {
				t.Errorf("recordedHash(%q) = %q, %v, want %q, %v", tt.ptx, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestAnalyticsKernelsListed checks that the analytics engine loads every
// kernel of the committed analytics.ptx, and only those.
func TestAnalyticsKernelsListed(t *testing.T) {
	ptx, err := kernelFS.ReadFile("kernels/analytics.ptx")
	if err != nil {
		t.Fatal(err)
	}
	var entries []string
	for _, m := range regexp.MustCompile(`\.entry (\w+)\(`).FindAllSubmatch(ptx, -1) {
		entries = append(entries, string(m[1]))
	}
	slices.Sort(entries)
	listed := slices.Sorted(slices.Values(analyticsKernels))
	if !slices.Equal(entries, listed) {
		t.Errorf("analytics.ptx has kernels %v, analyticsKernels lists %v", entries, listed)
	}
}
