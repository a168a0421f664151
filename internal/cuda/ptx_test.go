package cuda

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPTXFresh fails when a committed .ptx of the module (each package's
// kernels/*.ptx, which it embeds) was not compiled from the current .cu
// beside it and the headers (*.cuh) it may include, or a .cu has no .ptx:
// run make ptx on a machine with nvcc and commit the result.
func TestPTXFresh(t *testing.T) {
	root := filepath.Join("..", "..")
	var sources []string
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && path != root && strings.HasPrefix(e.Name(), ".") {
			return filepath.SkipDir
		}
		if !e.IsDir() && filepath.Ext(path) == ".cu" && filepath.Base(filepath.Dir(path)) == "kernels" {
			sources = append(sources, path)
		}
		return nil
	})
	if err != nil || len(sources) == 0 {
		t.Fatalf("no kernels/*.cu in the module (err %v)", err)
	}
	for _, src := range sources {
		rel, _ := filepath.Rel(root, src)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			want, err := sourceHash(src)
			if err != nil {
				t.Fatal(err)
			}
			ptxFile := strings.TrimSuffix(src, ".cu") + ".ptx"
			ptx, err := os.ReadFile(ptxFile)
			if err != nil {
				t.Fatalf("%s has no committed PTX: run make ptx", rel)
			}
			if got, ok := recordedHash(ptx); got != want {
				t.Errorf("%s records source sha256 %q (header found: %v), the source's is %s: run make ptx", ptxFile, got, ok, want)
			}
		})
	}
}

// sourceHash is the sha256, in hex, of the .cu at src followed by the
// headers (*.cuh) of its directory in name order, as mkptx.sh writes it.
func sourceHash(src string) (string, error) {
	headers, err := filepath.Glob(filepath.Join(filepath.Dir(src), "*.cuh"))
	if err != nil {
		return "", err
	}
	slices.Sort(headers)
	h := sha256.New()
	for _, f := range append([]string{src}, headers...) {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
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

// hashPrefix starts the first line of every generated .ptx; the sha256 of
// the .cu source, in hex, follows it.
const hashPrefix = "// source-sha256: "

// recordedHash returns the source hash in a PTX's header line.
func recordedHash(ptx []byte) (string, bool) {
	line, _, _ := bytes.Cut(ptx, []byte("\n"))
	h, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte(hashPrefix))
	if !ok || len(h) != 64 {
		return "", false
	}
	return string(h), true
}
