package index_test

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/index"
)

// segmentedIndex writes goodIndex's collection with lexicon segments of
// two terms.
func segmentedIndex(t *testing.T) string {
	t.Helper()
	defer index.SetSegmentTerms(2)()
	r := rand.New(rand.NewPCG(21, 22))
	c := randomCollection(r, 600, []int{1, 3, 127, 128, 129, 300, 600})
	dir := t.TempDir()
	c.write(t, dir, "varint-SU")
	return dir
}

// tail is the lexicon's bytes after the segment records: the bounds'
// values, the record count and the magic.
const tail = 20 + 16

// segmentTable returns the lexicon's segment records (six uint64 each)
// and where the table starts.
func segmentTable(b []byte) (recs [][6]uint64, start int) {
	n := int(binary.LittleEndian.Uint64(b[len(b)-16:]))
	start = len(b) - tail - 48*n
	for i := range n {
		var r [6]uint64
		for k := range r {
			r[k] = binary.LittleEndian.Uint64(b[start+48*i+8*k:])
		}
		recs = append(recs, r)
	}
	return recs, start
}

// editSegment rewrites the inflated stream of lexicon segment i, moves
// the later segments' offsets, and fixes the checksum.
func editSegment(t *testing.T, dir string, i int, edit func([]byte) []byte) {
	t.Helper()
	editFile(t, dir, "lexicon.bin", func(b []byte) []byte {
		recs, start := segmentTable(b)
		lo, hi := recs[i][0], recs[i+1][0]
		z := deflate(t, edit(inflate(t, b[lo:hi])))
		shift := uint64(len(z)) - (hi - lo)
		out := slices.Concat(b[:lo], z, b[hi:start])
		for j := range recs {
			if j > i {
				recs[j][0] += shift
			}
			for _, v := range recs[j] {
				out = binary.LittleEndian.AppendUint64(out, v)
			}
		}
		return append(out, b[len(b)-tail:]...)
	})
	resum(t, dir, "lexicon.bin")
}

// editTable rewrites record field k of segment record i.
func editTable(t *testing.T, dir string, i, k int, v uint64) {
	t.Helper()
	editFile(t, dir, "lexicon.bin", func(b []byte) []byte {
		_, start := segmentTable(b)
		binary.LittleEndian.PutUint64(b[start+48*i+8*k:], v)
		return b
	})
	resum(t, dir, "lexicon.bin")
}

func TestSegmentedLexiconDamaged(t *testing.T) {
	good := segmentedIndex(t)
	ix := openIndex(t, good)
	if ix.NumTerms() != 7 {
		t.Fatalf("%d terms, want 7", ix.NumTerms())
	}
	tests := []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   string
	}{
		// Segment 1 starts with "t002-len127"; "t000-len127" keeps every
		// length and count but falls before segment 0's last term.
		{"terms out of order across segments", func(t *testing.T, dir string) {
			editSegment(t, dir, 1, func(b []byte) []byte {
				if !strings.HasPrefix(string(b[2:]), "t002") {
					t.Fatalf("segment 1 starts %q", b[:12])
				}
				b[5] = '0'
				return b
			})
		}, "out of order"},
		{"segment 1 cut short", func(t *testing.T, dir string) {
			editSegment(t, dir, 1, func(b []byte) []byte { return b[:len(b)-2] })
		}, "lexicon.bin"},
		{"a record after segment 1's last term", func(t *testing.T, dir string) {
			editSegment(t, dir, 1, func(b []byte) []byte { return append(b, 0) })
		}, "after the last record"},
		{"no segment table", func(t *testing.T, dir string) {
			editFile(t, dir, "lexicon.bin", func(b []byte) []byte { return b[:len(b)-8] })
			resum(t, dir, "lexicon.bin")
		}, "no segment table"},
		{"segment count past the file", func(t *testing.T, dir string) {
			editFile(t, dir, "lexicon.bin", func(b []byte) []byte {
				binary.LittleEndian.PutUint64(b[len(b)-16:], 1<<40)
				return b
			})
			resum(t, dir, "lexicon.bin")
		}, "segment table"},
		{"segment offsets out of order", func(t *testing.T, dir string) { editTable(t, dir, 2, 0, 1) }, "does not follow"},
		{"first segment not at zero", func(t *testing.T, dir string) { editTable(t, dir, 0, 1, 1) }, "not at zero"},
		{"segment claims one more term", func(t *testing.T, dir string) { editTable(t, dir, 1, 1, 3) }, "lexicon.bin"},
		{"segment claims other term bytes", func(t *testing.T, dir string) { editTable(t, dir, 1, 5, 5) }, "term bytes"},
		{"segment claims another docid offset", func(t *testing.T, dir string) { editTable(t, dir, 2, 3, 1) }, "lexicon.bin"},
		{"segments end before the blocks", func(t *testing.T, dir string) {
			recs, _ := segmentTable(readFile(t, dir, "lexicon.bin"))
			editTable(t, dir, len(recs)-1, 2, recs[len(recs)-1][2]-1)
		}, "segments end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyIndex(t, good)
			tt.damage(t, dir)
			err := openRefused(t, dir)
			if !errors.Is(err, index.ErrCorrupt) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "lexicon.bin") {
				t.Errorf("Open error = %v, want ErrCorrupt naming lexicon.bin and %q", err, tt.want)
			}
		})
	}
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(dataPath(t, dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
