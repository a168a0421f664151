package index

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestDeletionsRoundTrip writes deletions files and reads them back.
func TestDeletionsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		docs uint64
		del  []uint32
	}{
		{"one", 10, []uint32{3}},
		{"run", 100_000, nil},
		{"scattered", 1000, []uint32{0, 7, 999, 512}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			del := roaring.BitmapOf(tt.del...)
			if tt.del == nil {
				del.AddRange(100, 90_000)
			}
			dm, err := writeDeletions(dir, delName("gen-2", "gen-9"), del)
			if err != nil {
				t.Fatal(err)
			}
			got, err := readDeletions(dir, dm, tt.docs)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equals(del) || dm.Count != del.GetCardinality() {
				t.Errorf("read %v (count %d), wrote %v", got, dm.Count, del)
			}
			if _, err := readDeletions(dir, dm, uint64(del.Maximum())); !errors.Is(err, ErrCorrupt) {
				t.Errorf("a segment too small for its deletions: %v, want ErrCorrupt", err)
			}
		})
	}
}

// TestDeletionsGarbage reads random and damaged deletions files whose
// checksum the commit point vouches for (a writer's bug, not a flipped
// bit): refused with ErrCorrupt, or read as a sound bitmap of the count
// and range the commit point gives, never a panic.
func TestDeletionsGarbage(t *testing.T) {
	dir := t.TempDir()
	good := roaring.BitmapOf(1, 5, 70_000)
	good.AddRange(200, 5000)
	dm, err := writeDeletions(dir, "gen-1.del-2", good)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, dm.File))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		b := append([]byte(nil), raw...)
		switch i % 3 {
		case 0: // bytes of the bitmap changed
			for range 1 + r.IntN(4) {
				b[len(deletionsMagic)+r.IntN(len(b)-len(deletionsMagic))] = byte(r.Uint32())
			}
		case 1: // cut short
			b = b[:r.IntN(len(b))]
		default: // random bytes after the magic
			b = append([]byte(deletionsMagic), make([]byte, r.IntN(64))...)
			for k := len(deletionsMagic); k < len(b); k++ {
				b[k] = byte(r.Uint32())
			}
		}
		name := "gen-1.del-3"
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		bad := DeletionsMeta{File: name, Size: int64(len(b)), CRC32: crc32.Checksum(b, castagnoli), Count: dm.Count}
		got, err := readDeletions(dir, bad, 100_000)
		if err == nil && (got.Validate() != nil || got.GetCardinality() != dm.Count || got.Maximum() >= 100_000) {
			t.Fatalf("case %d: read an unsound bitmap of %d deletions without an error", i, got.GetCardinality())
		}
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("case %d: %v, want ErrCorrupt", i, err)
		}
	}
}

// TestDelNames checks the deletions files' names.
func TestDelNames(t *testing.T) {
	for _, tt := range []struct {
		name   string
		seg    string
		commit uint64
		ok     bool
	}{
		{"gen-3.del-9", "gen-3", 9, true},
		{"gen-3.del-09", "", 0, false},
		{"gen-3.del-", "", 0, false},
		{"gen-x.del-2", "", 0, false},
		{"gen-3", "", 0, false},
		{".gen-3.del-2.tmp-1", "", 0, false},
	} {
		seg, c, ok := parseDelName(tt.name)
		if ok != tt.ok || seg != tt.seg || c != tt.commit {
			t.Errorf("parseDelName(%q) = %q, %d, %v; want %q, %d, %v", tt.name, seg, c, ok, tt.seg, tt.commit, tt.ok)
		}
	}
}

// TestSegmentedMetaChecks edits a version 7 commit point's segments into
// what no writer writes: each refused with ErrCorrupt.
func TestSegmentedMetaChecks(t *testing.T) {
	seg := func(gen string, docs uint64) SegmentMeta {
		return SegmentMeta{Meta: Meta{Generation: gen, DocIDCodec: "newpfor", FreqCodec: "newpfor", BlockSize: 128, Docs: docs,
			Order: "url", K1: 0.9, B: 0.4, Files: map[string]FileMeta{}}}
	}
	base := func() Meta {
		return Meta{Version: SegmentedVersion, Generation: "gen-5", DocIDCodec: "newpfor", FreqCodec: "newpfor", BlockSize: 128,
			Order: "url", K1: 0.9, B: 0.4, Files: map[string]FileMeta{}, Segments: []SegmentMeta{seg("gen-1", 10), seg("gen-4", 3)}}
	}
	if err := base().check(); err != nil {
		t.Fatalf("a sound commit point: %v", err)
	}
	for _, tt := range []struct {
		name string
		edit func(m *Meta)
	}{
		{"no segments", func(m *Meta) { m.Segments = nil }},
		{"files of its own", func(m *Meta) { m.Files = map[string]FileMeta{fileDocIDs: {}} }},
		{"a segment twice", func(m *Meta) { m.Segments[1].Meta.Generation = "gen-1" }},
		{"another codec", func(m *Meta) { m.Segments[1].Meta.DocIDCodec = "bp128" }},
		{"another k1", func(m *Meta) { m.Segments[0].Meta.K1 = 1.2 }},
		{"not a generation", func(m *Meta) { m.Segments[0].Meta.Generation = "../x" }},
		{"nested segments", func(m *Meta) { m.Segments[0].Meta.Segments = []SegmentMeta{seg("gen-2", 1)} }},
		{"another segment's deletions", func(m *Meta) { m.Segments[0].Deletions = &DeletionsMeta{File: "gen-4.del-5", Count: 1} }},
		{"more deletions than documents", func(m *Meta) { m.Segments[1].Deletions = &DeletionsMeta{File: "gen-4.del-5", Count: 4} }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := base()
			tt.edit(&m)
			if err := m.check(); !errors.Is(err, ErrCorrupt) {
				t.Errorf("check = %v, want ErrCorrupt", err)
			}
		})
	}
	// A version 6 commit point names no segments.
	raw, err := encodeMeta(base())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeMeta(raw); err != nil {
		t.Errorf("a version 7 commit point: %v", err)
	}
	v6 := bytes.Replace(raw, fmt.Appendf(nil, `"version": %d`, SegmentedVersion), fmt.Appendf(nil, `"version": %d`, FormatVersion), 1)
	if _, err := decodeMeta(v6); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a version 6 commit point naming segments: %v, want ErrCorrupt", err)
	}
}
