package index_test

import (
	"errors"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/hugemem"
)

func TestParseMemory(t *testing.T) {
	for _, tc := range []struct {
		name string
		want index.Memory
		ok   bool
	}{
		{"mapped", index.Mapped, true},
		{"huge", index.HugePages, true},
		{"auto", index.AutoMemory, true},
		{"", 0, false},
		{"Huge", 0, false},
		{"memory", 0, false},
	} {
		got, err := index.ParseMemory(tc.name)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseMemory(%q) = %v, %v; want %v, ok %v", tc.name, got, err, tc.want, tc.ok)
		}
		if tc.ok && got.String() != tc.name {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tc.name)
		}
	}
}

// TestAutoMemory checks that AutoMemory keeps a small index in memory
// where the machine's memory is known and huge pages are given, and maps one whose postings would
// take more than a quarter of it.
func TestAutoMemory(t *testing.T) {
	dir := goodIndex(t)
	small := index.Mapped
	if hugemem.Total() > 0 && hugemem.Available() {
		small = index.HugePages
	}
	if got := index.AutoMemory.Resolve(readMeta(t, dir)); got != small {
		t.Errorf("AutoMemory for a small index: %v, want %v", got, small)
	}
	m := readMeta(t, dir)
	fm := m.Files["docids.bin"]
	fm.Size = int64(hugemem.Total()/4 + 1)
	m.Files["docids.bin"] = fm
	if got := index.AutoMemory.Resolve(m); got != index.Mapped {
		t.Errorf("AutoMemory for postings of a quarter of the memory and more: %v, want mapped", got)
	}
	for _, mem := range []index.Memory{index.Mapped, index.HugePages} {
		if got := mem.Resolve(m); got != mem {
			t.Errorf("%v resolves to %v", mem, got)
		}
	}
}

// TestHugePagesChecksPostings checks that postings read into memory are
// checked as mapped ones are: a flipped byte is refused at open.
func TestHugePagesChecksPostings(t *testing.T) {
	for _, name := range []string{"docids.bin", "freqs.bin"} {
		dir := copyIndex(t, goodIndex(t))
		editFile(t, dir, name, func(b []byte) []byte { b[len(b)/2] ^= 0x10; return b })
		ix, err := index.OpenWith(dir, index.HugePages)
		if err == nil {
			ix.Close()
			t.Fatalf("%s with a flipped byte opened", name)
		}
		if !errors.Is(err, index.ErrCorrupt) {
			t.Errorf("%s with a flipped byte: %v does not wrap ErrCorrupt", name, err)
		}
	}
}

func readMeta(t *testing.T, dir string) index.Meta {
	t.Helper()
	m, err := index.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
