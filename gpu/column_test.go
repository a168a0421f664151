package gpu

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/codecplugins"
	_ "github.com/gpusearch/gpusearch/codecplugins/gpuformat"
	_ "github.com/gpusearch/gpusearch/codecplugins/varint"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/kernelgen/kernelcheck"
	"github.com/gpusearch/gpusearch/internal/testindex"
)

var gpuCodecs = []string{"gpu-bp128", "gpu-bp256", "gpu-vbyte128", "gpu-vbyte1024", "gpu-pfordelta", "gpu-rice"}

func TestKernelsCoverGPUCodecs(t *testing.T) {
	for _, name := range gpuCodecs {
		if !Decodable(name) {
			t.Errorf("Decodable(%q) = false, want true", name)
		}
	}
	if Decodable("varint-SU") {
		t.Errorf("Decodable(%q) = true, want false", "varint-SU")
	}
}

// TestDecodeKernelsInPTX checks the kernels map against the committed
// decode.ptx: OpenDevice loads exactly the kernels of it.
func TestDecodeKernelsInPTX(t *testing.T) {
	ptx, err := kernelFS.ReadFile("kernels/decode.ptx")
	if err != nil {
		t.Fatal(err)
	}
	entries := slices.Sorted(maps.Keys(kernelcheck.Entries(ptx)))
	loaded := slices.Sorted(slices.Values(decodeKernels()))
	if !slices.Equal(entries, loaded) {
		t.Errorf("decode.ptx has kernels %v, OpenDevice loads %v", entries, loaded)
	}
}

// TestFusedKernelsInPTX checks that the committed query.ptx has every
// fused kernel OpenDevice loads, and that each codec's stem has its rows
// per CTA for their grids.
func TestFusedKernelsInPTX(t *testing.T) {
	ptx, err := kernelFS.ReadFile("kernels/query.ptx")
	if err != nil {
		t.Fatal(err)
	}
	entries := kernelcheck.Entries(ptx)
	for _, name := range fusedKernels() {
		if _, ok := entries[name]; !ok {
			t.Errorf("query.ptx lacks %s", name)
		}
	}
	for codec, stem := range kernels {
		if fusedRows[stem] <= 0 {
			t.Errorf("%s (%s): no rows per CTA for the fused kernels", codec, stem)
		}
	}
}

// TestLaunchesMatchPTX checks every kernel launch of the package, decoders
// and query kernels, against the committed PTX: a kernel of it, one 8-byte
// argument per parameter, and every kernel launched.
func TestLaunchesMatchPTX(t *testing.T) {
	var ptx [][]byte
	for _, name := range []string{"decode", "query"} {
		p, err := kernelFS.ReadFile("kernels/" + name + ".ptx")
		if err != nil {
			t.Fatal(err)
		}
		ptx = append(ptx, p)
	}
	if err := kernelcheck.Check(".", ptx...); err != nil {
		t.Error(err)
	}
}

// randomList returns n distinct sorted docids below universe.
func randomList(rng *rand.Rand, n int, universe uint32) []uint32 {
	seen := make(map[uint32]bool, n)
	for len(seen) < n {
		seen[rng.Uint32N(universe)] = true
	}
	l := make([]uint32, 0, n)
	for d := range seen {
		l = append(l, d)
	}
	slices.Sort(l)
	return l
}

func TestEncodeListDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range gpuCodecs {
		c, err := codecplugins.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		bs := c.BlockSize()
		for _, n := range []int{1, bs - 1, bs, bs + 1, 3*bs + 5} {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				docids := randomList(rng, n, 1<<20)
				h := EncodeList(c, docids)
				if err := h.Validate(); err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				got := make([]uint32, max(2, h.NumBlocks())*bs)
				if err := h.Decode(got, nil, DocIDs); err != nil {
					t.Fatalf("Decode(DocIDs) = %v", err)
				}
				if !slices.Equal(got[:n], docids) {
					t.Fatalf("Decode(EncodeList(docids)) = %v, want %v", got[:n], docids)
				}
				// Selected blocks: the last one first.
				nb := h.NumBlocks()
				sel := []uint32{uint32(nb - 1), 0}
				if err := h.Decode(got, sel, Gaps); err != nil {
					t.Fatalf("Decode(Gaps, %v) = %v", sel, err)
				}
				first := (nb - 1) * bs
				want := docids[first] - h.Bases[nb-1]
				if got[0] != want {
					t.Errorf("Decode(Gaps, %v)[0] = %d, want %d", sel, got[0], want)
				}
				if got[bs] != docids[0] {
					t.Errorf("Decode(Gaps, %v)[%d] = %d, want %d", sel, bs, got[bs], docids[0])
				}
			})
		}
	}
}

func TestValidate(t *testing.T) {
	c, _ := codecplugins.Lookup("gpu-bp128")
	good := func() HostColumn { return EncodeList(c, []uint32{1, 5, 9}) }
	tests := []struct {
		name   string
		mutate func(*HostColumn)
	}{
		{"unknown-codec", func(h *HostColumn) { h.Codec = "nope" }},
		{"cpu-codec", func(h *HostColumn) { h.Codec = "varint-SU" }},
		{"block-size", func(h *HostColumn) { h.BlockSize = 130 }},
		{"offsets-count", func(h *HostColumn) { h.Offsets = h.Offsets[:1] }},
		{"bases-count", func(h *HostColumn) { h.Bases = append(h.Bases, 7) }},
		{"offsets-span", func(h *HostColumn) { h.Offsets[1]-- }},
		{"count-too-big", func(h *HostColumn) { h.Counts[0] = 129 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := good()
			tt.mutate(&h)
			if err := h.Validate(); !errors.Is(err, ErrFormat) {
				t.Errorf("Validate() = %v, want an error wrapping ErrFormat", err)
			}
		})
	}
	h := good()
	if err := h.Validate(); err != nil {
		t.Errorf("Validate() of a good column = %v", err)
	}
}

// TestIndexColumns writes a small index with a GPU codec and checks that
// the columns decode to its posting lists.
func TestIndexColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const docs = 3000
	lens := make([]uint32, docs)
	urls := make([]string, docs)
	for i := range lens {
		lens[i] = 10
		urls[i] = fmt.Sprintf("doc%05d", i)
	}
	lists := map[string][]uint32{}
	var postings []testindex.Postings
	for i, n := range []int{1, 127, 128, 129, 700, docs} {
		term := fmt.Sprintf("t%d", i)
		lists[term] = randomList(rng, n, docs)
		freqs := make([]uint32, n)
		for j := range freqs {
			freqs[j] = 1 + uint32(j%5)
		}
		postings = append(postings, testindex.Postings{Term: term, DocIDs: lists[term], Freqs: freqs})
	}
	ix := testindex.Write(t, index.WriterOptions{DocIDCodec: "gpu-bp128", FreqCodec: "gpu-pfordelta"}, lens, urls, postings...)
	dh, fh := IndexColumns(ix)
	for _, h := range []*HostColumn{&dh, &fh} {
		if err := h.Validate(); err != nil {
			t.Fatalf("%s column: Validate() = %v", h.Codec, err)
		}
	}
	bs := ix.BlockSize()
	docids := make([]uint32, dh.NumBlocks()*bs)
	freqs := make([]uint32, fh.NumBlocks()*bs)
	if err := dh.Decode(docids, nil, DocIDs); err != nil {
		t.Fatal(err)
	}
	if err := fh.Decode(freqs, nil, Gaps); err != nil {
		t.Fatal(err)
	}
	for term, want := range lists {
		ti, ok := ix.Lookup(term)
		if !ok {
			t.Fatalf("Lookup(%q) failed", term)
		}
		first := int(ti.FirstBlock)
		nb := ti.NumBlocks(bs)
		var got []uint32
		for b := first; b < first+nb; b++ {
			got = append(got, docids[b*bs:b*bs+int(dh.Counts[b])]...)
			for j, f := range freqs[b*bs : b*bs+int(fh.Counts[b])] {
				if want := uint32((b-first)*bs+j) % 5; f != want {
					t.Fatalf("%s: freq-1 of posting %d = %d, want %d", term, (b-first)*bs+j, f, want)
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: decoded docids %v, want %v", term, got, want)
		}
	}
}
