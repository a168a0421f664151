package index

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeSources writes an index of docs one-token documents with sources
// srcs into dir and returns sources.bin's bytes.
func writeSources(t testing.TB, dir string, docs int, opts SourceOptions, srcs []Source) []byte {
	t.Helper()
	lens, urls := make([]uint32, docs), make([]string, docs)
	ids, freqs := make([]uint32, docs), make([]uint32, docs)
	for d := range docs {
		lens[d], urls[d], ids[d], freqs[d] = 1, string(rune('a'+d%26))+strings.Repeat("x", d), uint32(d), 1
	}
	w, err := NewWriter(dir, WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Force: true}, lens, urls)
	if err != nil {
		t.Fatal(err)
	}
	if docs > 0 {
		if err := w.AddTerm("t", ids, freqs); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AddSources(opts, srcs); err != nil {
		w.Abort()
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	m, err := ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, m.Generation, fileSources))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// sampleSources are sources of 6 documents, with extreme values.
var sampleSources = []Source{
	{URL: "http://example.com/a.html", Size: 0, MTime: -1, Hash: 0, Docs: 1},
	{URL: "http://example.com/ab.html", Size: math.MaxInt64, MTime: math.MinInt64, Hash: math.MaxUint64, Docs: 3},
	{URL: "http://example.com/b.txt", Size: 1234, MTime: math.MaxInt64, Hash: 0x0123456789abcdef, Docs: 2},
}

func TestSourcesRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts SourceOptions
		srcs []Source
		docs int
	}{
		{"documents", SourceOptions{MaxDocBytes: 4 << 20, Oversize: "truncate"}, sampleSources[:1], 1},
		{"passages", SourceOptions{Passages: 300, MaxDocBytes: 1, Oversize: "skip"}, sampleSources, 6},
		{"empty", SourceOptions{Oversize: "truncate"}, nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeSources(t, dir, tt.docs, tt.opts, tt.srcs)
			ix, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			opts, srcs, ok := ix.Sources()
			if !ok || opts != tt.opts || !slices.Equal(srcs, tt.srcs) {
				t.Errorf("Sources() = %+v, %+v, %v; want %+v, %+v", opts, srcs, ok, tt.opts, tt.srcs)
			}
		})
	}
}

// TestAddSourcesRefuses checks that the writer refuses sources that do
// not describe its documents.
func TestAddSourcesRefuses(t *testing.T) {
	ok := SourceOptions{Oversize: "truncate"}
	for _, tt := range []struct {
		name string
		opts SourceOptions
		srcs []Source
	}{
		{"too few documents", ok, []Source{{URL: "a", Docs: 1}}},
		{"too many documents", ok, []Source{{URL: "a", Docs: 3}}},
		{"a source of no document", ok, []Source{{URL: "a", Docs: 2}, {URL: "b"}}},
		{"negative size", ok, []Source{{URL: "a", Docs: 2, Size: -1}}},
		{"unknown oversize policy", SourceOptions{Oversize: "drop"}, []Source{{URL: "a", Docs: 2}}},
		{"negative passages", SourceOptions{Passages: -1, Oversize: "skip"}, []Source{{URL: "a", Docs: 2}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, err := NewWriter(t.TempDir(), WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}, []uint32{1, 1}, []string{"a", "b"})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			if err := w.AddSources(tt.opts, tt.srcs); err == nil {
				t.Errorf("AddSources(%+v, %+v): no error", tt.opts, tt.srcs)
			}
		})
	}
}

// TestParseSourcesRefuses damages sources.bin: every damage is an error
// wrapping ErrCorrupt and naming the file.
func TestParseSourcesRefuses(t *testing.T) {
	good := writeSources(t, t.TempDir(), 6, SourceOptions{Passages: 2, Oversize: "skip"}, sampleSources)
	if _, err := parseSources(good, 6); err != nil {
		t.Fatalf("the good file: %v", err)
	}
	for _, tt := range []struct {
		name string
		data []byte
		docs uint64
	}{
		{"more documents than the index", good, 5},
		{"fewer documents than the index", good, 7},
		{"truncated", good[:len(good)/2], 6},
		{"empty", nil, 6},
		{"not deflate", []byte("sources"), 6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseSources(tt.data, tt.docs)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fileSources) {
				t.Errorf("parseSources = %v, want ErrCorrupt naming %s", err, fileSources)
			}
		})
	}
	// Every byte flipped: refused, or read as sources of the index's
	// documents.
	for i := range good {
		b := slices.Clone(good)
		b[i] ^= 0x41
		if st, err := parseSources(b, 6); err == nil {
			checkSourceTable(t, st, 6)
		} else if !errors.Is(err, ErrCorrupt) {
			t.Errorf("byte %d flipped: %v does not wrap ErrCorrupt", i, err)
		}
	}
}

// checkSourceTable checks what parseSources promises of a table it
// accepts.
func checkSourceTable(t testing.TB, st *sourceTable, docs uint64) {
	t.Helper()
	var total uint64
	for _, s := range st.srcs {
		if s.Docs == 0 || s.Size < 0 {
			t.Fatalf("accepted a source %+v", s)
		}
		total += uint64(s.Docs)
	}
	if total != docs || !slices.Contains(oversizePolicies, st.opts.Oversize) || st.opts.Passages < 0 || st.opts.MaxDocBytes < 0 {
		t.Fatalf("accepted sources of %d documents for %d, options %+v", total, docs, st.opts)
	}
}

// FuzzParseSources feeds sources.bin's parser garbage: it never panics,
// and what it accepts describes the index's documents.
func FuzzParseSources(f *testing.F) {
	f.Add(writeSources(f, f.TempDir(), 6, SourceOptions{Passages: 2, Oversize: "skip"}, sampleSources), uint16(6))
	f.Add(writeSources(f, f.TempDir(), 0, SourceOptions{Oversize: "truncate"}, nil), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, docs uint16) {
		if st, err := parseSources(data, uint64(docs)); err == nil {
			checkSourceTable(t, st, uint64(docs))
		} else if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error %v does not wrap ErrCorrupt", err)
		}
	})
}

// TestZigzag round-trips modification times, negative ones included.
func TestZigzag(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 1 << 40, -(1 << 40), math.MaxInt64, math.MinInt64} {
		if got := unzigzag(zigzag(v)); got != v {
			t.Errorf("unzigzag(zigzag(%d)) = %d", v, got)
		}
	}
}
