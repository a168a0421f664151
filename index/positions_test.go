package index

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
)

// randomPositions makes a block of n postings: frequencies and strictly
// increasing positions, some far apart.
func randomPositions(rng *rand.Rand, n int) (freqs []uint32, positions [][]uint32) {
	for range n {
		f := 1 + rng.IntN(6)
		if rng.IntN(10) == 0 {
			f += rng.IntN(300)
		}
		var ps []uint32
		p := uint32(rng.IntN(50))
		for range f {
			ps = append(ps, p)
			p += 1 + uint32(rng.IntN(40))
			if rng.IntN(50) == 0 {
				p += uint32(rng.IntN(1 << 20))
			}
		}
		freqs = append(freqs, uint32(f))
		positions = append(positions, ps)
	}
	return freqs, positions
}

// decodeAll decodes every posting's positions of a block, in a random
// order of postings, and returns them in posting order.
func decodeAll(c codecplugins.Codec, src []byte, fm1 []uint32) ([]uint32, error) {
	var b positionsBlock
	if err := b.reset(c, src, fm1); err != nil {
		return nil, err
	}
	per := make([][]uint32, len(fm1))
	for _, i := range rand.Perm(len(fm1)) {
		ps, err := b.posting(nil, i, math.MaxUint32)
		if err != nil {
			return nil, err
		}
		per[i] = ps
		// A limit stops after the first position at or past it.
		limit := uint32(rand.IntN(int(ps[len(ps)-1]) + 2))
		want := ps[:min(len(ps), sort.Search(len(ps), func(k int) bool { return ps[k] >= limit })+1)]
		if got, err := b.posting(nil, i, limit); err != nil || !slices.Equal(got, want) {
			return nil, fmt.Errorf("posting %d up to %d = %v, %v; want %v", i, limit, got, err, want)
		}
	}
	return slices.Concat(per...), nil
}

func TestPositionsBlockRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range codecplugins.Names() {
		c, err := codecplugins.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 2, 7, 128, 129} {
			freqs, positions := randomPositions(rng, n)
			var vals, want, fm1 []uint32
			for _, f := range freqs {
				fm1 = append(fm1, f-1)
			}
			for _, ps := range positions {
				vals = appendPositionGaps(vals, ps)
				want = append(want, ps...)
			}
			enc := appendPositionsBlock(nil, c, vals)
			got, err := decodeAll(c, enc, fm1)
			if err != nil {
				t.Fatalf("%s, %d postings: %v", name, n, err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s, %d postings: positions differ", name, n)
			}
			// Truncations fail cleanly, never panic.
			for cut := 0; cut < len(enc); cut += 1 + len(enc)/17 {
				if _, err := decodeAll(c, enc[:cut], fm1); err != nil && !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%s: truncated at %d: %v does not wrap ErrCorrupt", name, cut, err)
				}
			}
		}
	}
}

func TestPositionsTable(t *testing.T) {
	sizes := []uint64{3, 0, 200, 1}
	data := make([]byte, 204)
	file := appendPositionsTable(slices.Clone(data), sizes, uint64(len(data)), "bp128")
	offs, codec, err := parsePositionsTable(file, 4)
	if err != nil || codec != "bp128" {
		t.Fatalf("codec %q, error %v", codec, err)
	}
	if want := []uint64{0, 3, 3, 203, 204}; !slices.Equal(offs, want) {
		t.Fatalf("offsets %v, want %v", offs, want)
	}
	for _, tc := range []struct {
		name   string
		file   []byte
		blocks uint64
	}{
		{"wrong block count", file, 5},
		{"no trailer", file[:len(file)-1], 4},
		{"name past the table", append(slices.Clone(file[:len(file)-positionsTrailer]), append([]byte{250}, file[len(file)-positionsTrailer+1:]...)...), 4},
		{"empty", nil, 0},
		{"sizes past the data", appendPositionsTable(slices.Clone(data), []uint64{300}, uint64(len(data)), ""), 1},
		{"sizes short of the data", appendPositionsTable(slices.Clone(data), []uint64{3}, uint64(len(data)), "x"), 1},
		{"table offset past the end", appendPositionsTable(nil, nil, 1<<40, ""), 0},
	} {
		if _, _, err := parsePositionsTable(tc.file, tc.blocks); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestPositionsBlockCut checks that a block decodes its postings whole,
// and that cut anywhere it gives an error wrapping ErrCorrupt, at reset
// or for a posting reaching past the cut, never a panic or a wrong
// answer.
func TestPositionsBlockCut(t *testing.T) {
	c, err := codecplugins.Lookup("varint-SU")
	if err != nil {
		t.Fatal(err)
	}
	bs := c.BlockSize()
	rng := rand.New(rand.NewPCG(5, 6))
	// Posting 0 lies in the first chunk; posting 1 runs into the third.
	freqs, positions := []uint32{3, uint32(2 * bs)}, [][]uint32{{1, 5, 9}, nil}
	for p := range 2 * bs {
		positions[1] = append(positions[1], uint32(p*3+rng.IntN(2)))
	}
	var vals []uint32
	for _, ps := range positions {
		vals = appendPositionGaps(vals, ps)
	}
	enc := appendPositionsBlock(nil, c, vals)
	fm1 := []uint32{freqs[0] - 1, freqs[1] - 1}
	for cut := 0; cut <= len(enc); cut++ {
		var b positionsBlock
		err := b.reset(c, enc[:cut], fm1)
		for p := range positions {
			var got []uint32
			if err == nil {
				got, err = b.posting(nil, p, math.MaxUint32)
			}
			switch {
			case cut == len(enc) && (err != nil || !slices.Equal(got, positions[p])):
				t.Fatalf("posting %d of the whole block = %v, %v; want %v", p, got, err, positions[p])
			case cut < len(enc) && err == nil && !slices.Equal(got, positions[p]):
				t.Fatalf("block cut at %d: posting %d = %v, want %v or an error", cut, p, got, positions[p])
			case err != nil && !errors.Is(err, ErrCorrupt):
				t.Fatalf("block cut at %d: error %v, want one wrapping ErrCorrupt", cut, err)
			}
		}
		if cut < len(enc) && err == nil {
			t.Fatalf("block cut at %d of %d: no error", cut, len(enc))
		}
	}
}

// FuzzPositions decodes garbage as a block's positions and as a positions
// file's table: errors, never panics.
func FuzzPositions(f *testing.F) {
	c, _ := codecplugins.Lookup("varint-SU")
	f.Add(appendPositionsBlock(nil, c, []uint32{0, 4, 2, 9}), []byte{2, 1, 1}, uint8(0))
	f.Add(appendPositionsTable(nil, []uint64{0, 0}, 0, "varint-SU"), []byte{1}, uint8(1))
	names := codecplugins.Names()
	f.Fuzz(func(t *testing.T, data, freqBytes []byte, codec uint8) {
		c, err := codecplugins.Lookup(names[int(codec)%len(names)])
		if err != nil {
			t.Fatal(err)
		}
		fm1 := make([]uint32, len(freqBytes))
		for i, b := range freqBytes {
			fm1[i] = uint32(b)
		}
		if _, err := decodeAll(c, data, fm1); err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error %v does not wrap ErrCorrupt", err)
		}
		parsePositionsTable(data, uint64(codec))
	})
}

// TestCursorPositions writes random documents with positions under
// several positions codecs and reads every posting's positions back
// through cursors, moving by Next and by NextGEQ.
func TestCursorPositions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const docs, vocab = 700, 40
	texts := make([][]int, docs)
	lens := make([]uint32, docs)
	urls := make([]string, docs)
	for d := range texts {
		n := rng.IntN(60)
		if d%50 == 0 {
			n = 600 // long lists of positions in a posting
		}
		for range n {
			texts[d] = append(texts[d], int(rng.ExpFloat64()*6)%vocab)
		}
		lens[d] = uint32(n)
		urls[d] = fmt.Sprintf("u%04d", d)
	}
	// want[term][doc] = positions
	want := make([]map[uint32][]uint32, vocab)
	for i := range want {
		want[i] = map[uint32][]uint32{}
	}
	for d, ts := range texts {
		for p, term := range ts {
			want[term][uint32(d)] = append(want[term][uint32(d)], uint32(p))
		}
	}
	for _, tc := range []struct{ docid, positions string }{
		{"bp128", ""}, {"bp128", "varint-SU"}, {"varint-SU", "gpu-pfordelta"}, {"bp32", "elias-fano"},
	} {
		dir := t.TempDir()
		w, err := NewWriter(dir, WriterOptions{DocIDCodec: tc.docid, FreqCodec: "varint-SU", Order: "url",
			Positions: true, PositionsCodec: tc.positions}, lens, urls)
		if err != nil {
			t.Fatal(err)
		}
		for term := range vocab {
			var docids, freqs, positions []uint32
			for _, d := range slices.Sorted(maps.Keys(want[term])) {
				docids = append(docids, d)
				freqs = append(freqs, uint32(len(want[term][d])))
				positions = append(positions, want[term][d]...)
			}
			if len(docids) == 0 {
				continue
			}
			if err := w.AddTermPositions(fmt.Sprintf("t%03d", term), docids, freqs, positions); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		ix, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !ix.HasPositions() {
			t.Fatal("no positions")
		}
		for term := range vocab {
			info, ok := ix.Lookup(fmt.Sprintf("t%03d", term))
			if !ok {
				continue
			}
			var buf []uint32
			c := ix.Cursor(info)
			for d := c.DocID(); d != NoMoreDocs; d = c.Next() {
				if rng.IntN(3) == 0 {
					continue // positions of some postings are never asked for
				}
				if buf, err = c.Positions(buf); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(buf, want[term][d]) {
					t.Fatalf("%v: term %d doc %d: positions %v, want %v", tc, term, d, buf, want[term][d])
				}
			}
			c = ix.LazyCursor(info)
			for target := uint32(rng.IntN(40)); c.NextGEQ(target) != NoMoreDocs; target = c.DocID() + 1 + uint32(rng.IntN(90)) {
				if buf, err = c.Positions(buf); err != nil || !slices.Equal(buf, want[term][c.DocID()]) {
					t.Fatalf("%v: term %d doc %d after NextGEQ: positions %v (%v), want %v", tc, term, c.DocID(), buf, err, want[term][c.DocID()])
				}
			}
			if c.Err() != nil {
				t.Fatal(c.Err())
			}
		}
		ix.Close()
	}
}

func TestNoPositions(t *testing.T) {
	dir := t.TempDir()
	w, err := NewWriter(dir, WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU"}, []uint32{2}, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AddTermPositions("x", []uint32{0}, []uint32{1}, []uint32{0}); err == nil {
		t.Fatal("a writer without positions took them")
	}
	if err := w.AddTerm("x", []uint32{0}, []uint32{2}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	info, _ := ix.Lookup("x")
	if _, err := ix.Cursor(info).Positions(nil); !errors.Is(err, ErrNoPositions) {
		t.Fatalf("error %v, want ErrNoPositions", err)
	}
}

func TestWriterRefusesBadPositions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		freqs     []uint32
		positions []uint32
	}{
		{"too few", []uint32{2, 1}, []uint32{0, 1}},
		{"too many", []uint32{1, 1}, []uint32{0, 1, 2}},
		{"not increasing", []uint32{2, 1}, []uint32{1, 1, 0}},
		{"past the length", []uint32{1, 1}, []uint32{3, 0}},
	} {
		w, err := NewWriter(t.TempDir(), WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Positions: true},
			[]uint32{3, 3}, []string{"a", "b"})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddTermPositions("x", []uint32{0, 1}, tc.freqs, tc.positions); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
		w.Abort()
	}
}

// TestOldPositionsRefused checks that positions written before the
// chunks' lengths were put together are refused with ErrVersion and a
// word on what to do.
func TestOldPositionsRefused(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir, 3, func(w *Writer) {
		f, err := w.createOptional(filePositions)
		if err != nil {
			t.Fatal(err)
		}
		tr := appendPositionsTable(nil, []uint64{0}, 0, "varint-SU")
		f.Write(append(tr[:len(tr)-len(positionsMagic)], oldPositionsMagic...))
	})
	if _, err := Open(dir); !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "rebuild") {
		t.Errorf("Open of an index with old positions = %v, want ErrVersion asking for a rebuild", err)
	}
}
