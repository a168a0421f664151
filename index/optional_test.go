package index

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOptionalFiles checks the optional data files: written and checksummed
// like the others when created, mapped when meta.json names them, absent
// otherwise, and refused when damaged or named by a version 3 index.
func TestOptionalFiles(t *testing.T) {
	old := optionalFiles
	optionalFiles = []string{"extra.bin"}
	defer func() { optionalFiles = old }()
	write := func(dir string, extra []byte) {
		t.Helper()
		w, err := NewWriter(dir, WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Force: true}, []uint32{1, 2}, []string{"a", "b"})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddTerm("t", []uint32{0, 1}, []uint32{1, 2}); err != nil {
			t.Fatal(err)
		}
		if extra != nil {
			f, err := w.createOptional("extra.bin")
			if err != nil {
				t.Fatal(err)
			}
			f.Write(extra)
			if _, err := w.createOptional("extra.bin"); err == nil {
				t.Error("createOptional twice: no error")
			}
			if _, err := w.createOptional("other.bin"); err == nil {
				t.Error("createOptional of an unknown name: no error")
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	write(dir, nil)
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ix.maps["extra.bin"]; ok {
		t.Error("an index without extra.bin maps one")
	}
	ix.Close()

	content := []byte("optional content")
	write(dir, content)
	ix, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := ix.maps["extra.bin"]; !bytes.Equal(got, content) {
		t.Errorf("extra.bin maps %q, want %q", got, content)
	}
	if ix.meta.Version != FormatVersion {
		t.Errorf("version %d, want %d", ix.meta.Version, FormatVersion)
	}
	p := filepath.Join(dir, ix.meta.Generation, "extra.bin")
	ix.Close()

	damaged := bytes.Clone(content)
	damaged[3] ^= 1
	if err := os.WriteFile(p, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "extra.bin") {
		t.Errorf("Open with a flipped byte in extra.bin = %v, want ErrCorrupt naming it", err)
	}
	os.WriteFile(p, content, 0o644)

	optionalFiles = nil
	if _, err := Open(dir); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Open of an index naming a file this build does not know = %v, want ErrCorrupt", err)
	}
	optionalFiles = []string{"extra.bin"}
	raw, _ := os.ReadFile(filepath.Join(dir, fileMeta))
	v3 := bytes.Replace(raw, fmt.Appendf(nil, `"version": %d`, FormatVersion), []byte(`"version": 3`), 1)
	if _, err := decodeMeta(v3); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a version 3 meta.json naming an optional file = %v, want ErrCorrupt", err)
	}
	write(dir, nil)
	raw, _ = os.ReadFile(filepath.Join(dir, fileMeta))
	v3 = bytes.Replace(raw, fmt.Appendf(nil, `"version": %d`, FormatVersion), []byte(`"version": 3`), 1)
	if m, err := decodeMeta(v3); err != nil || m.Version != 3 {
		t.Errorf("a version 3 meta.json = %v, %v: want it read", m.Version, err)
	}
}
