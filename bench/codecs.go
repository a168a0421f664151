package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index"
)

// Dataset is a named set of integer lists to compress (d-gaps or freq-1
// values).
type Dataset struct {
	Name  string
	Lists [][]uint32
}

// Values counts the integers in the dataset.
func (d Dataset) Values() int {
	n := 0
	for _, l := range d.Lists {
		n += len(l)
	}
	return n
}

// SyntheticDatasets builds the first paper's four sets: Uniform and
// Clustered lists of distinct integers in [0, 2^29), one sparse list of
// sparseN values and one dense list of denseN values each, as d-gaps.
func SyntheticDatasets(seed uint64, sparseN, denseN int) []Dataset {
	const universe = 1 << 29
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	mk := func(name string, gen func(*rand.Rand, int, uint32) []uint32, n int) Dataset {
		return Dataset{Name: name, Lists: [][]uint32{Gaps(gen(r, n, universe))}}
	}
	return []Dataset{
		mk("uniform-sparse", Uniform, sparseN),
		mk("uniform-dense", Uniform, denseN),
		mk("clustered-sparse", Clustered, sparseN),
		mk("clustered-dense", Clustered, denseN),
	}
}

// IndexDatasets reads a real index's posting lists as two datasets:
// "index-docids" (d-gaps) and "index-freqs" (freq-1), one list per term.
func IndexDatasets(ix *index.Index) ([]Dataset, error) {
	docs := Dataset{Name: "index-docids"}
	freqs := Dataset{Name: "index-freqs"}
	for i := range ix.NumTerms() {
		c := ix.Cursor(ix.Term(i))
		g := make([]uint32, 0, c.Len())
		f := make([]uint32, 0, c.Len())
		prev := uint32(0)
		for d := c.DocID(); d != index.NoMoreDocs; d = c.Next() {
			g = append(g, d-prev)
			f = append(f, c.Freq()-1)
			prev = d
		}
		if err := c.Err(); err != nil {
			return nil, err
		}
		docs.Lists = append(docs.Lists, g)
		freqs.Lists = append(freqs.Lists, f)
	}
	return []Dataset{docs, freqs}, nil
}

// CodecResult is one codec on one dataset.
type CodecResult struct {
	Codec     string  `json:"codec"`
	Dataset   string  `json:"dataset"`
	Values    int     `json:"values"`
	BPI       float64 `json:"bpi"`
	DecodeMIS float64 `json:"decode_mis"` // millions of integers per second, median, into the whole list (as the paper)
	// DecodeBlockMIS decodes every block into one reused block-sized
	// buffer, as the index cursors do: the output stays in cache.
	DecodeBlockMIS float64  `json:"decode_block_mis"`
	EncodeMIS      float64  `json:"encode_mis"`
	PaperBPI       *float64 `json:"paper_bpi,omitempty"` // Table 1 of the first paper, where it has the codec
}

// encodedList is one list cut into blocks.
type encodedList struct {
	data []byte
	offs []int // block start offsets, plus the end
	n    int
}

// MeasureCodec encodes every list of ds with c, checks that it decodes
// back, and times decoding (without prefix sums, as the paper) over runs
// repetitions of at least minTime each, reporting the median.
func MeasureCodec(c codecplugins.Codec, ds Dataset, runs int, minTime time.Duration) (CodecResult, error) {
	res := CodecResult{Codec: c.Name(), Dataset: ds.Name, Values: ds.Values()}
	bs := c.BlockSize()
	start := time.Now()
	lists := make([]encodedList, len(ds.Lists))
	var bytes int
	for i, l := range ds.Lists {
		enc := c
		if le, ok := c.(codecplugins.ListEncoder); ok {
			enc = le.ForList(l)
		}
		el := encodedList{n: len(l)}
		for s := 0; s < len(l); s += bs {
			el.offs = append(el.offs, len(el.data))
			el.data = enc.AppendBlock(el.data, l[s:min(s+bs, len(l))])
		}
		el.offs = append(el.offs, len(el.data))
		bytes += len(el.data)
		lists[i] = el
	}
	res.EncodeMIS = float64(res.Values) / time.Since(start).Seconds() / 1e6
	if res.Values > 0 {
		res.BPI = float64(8*bytes) / float64(res.Values)
	}
	longest := 0
	for _, l := range ds.Lists {
		longest = max(longest, len(l))
	}
	dst := make([]uint32, longest+bs)
	decodeAll := func(reuse bool) error {
		for _, el := range lists {
			for b := 0; b+1 < len(el.offs); b++ {
				n := min(bs, el.n-b*bs)
				out := dst[b*bs:]
				if reuse {
					out = dst[:bs]
				}
				if err := c.DecodeBlock(out, el.data[el.offs[b]:el.offs[b+1]], n); err != nil {
					return err
				}
			}
		}
		return nil
	}
	// Check once that every list decodes to itself.
	for i, el := range lists {
		for b := 0; b+1 < len(el.offs); b++ {
			n := min(bs, el.n-b*bs)
			if err := c.DecodeBlock(dst[b*bs:], el.data[el.offs[b]:el.offs[b+1]], n); err != nil {
				return res, fmt.Errorf("bench: %s on %s: %w", c.Name(), ds.Name, err)
			}
		}
		if !slices.Equal(dst[:el.n], ds.Lists[i]) {
			return res, fmt.Errorf("bench: %s on %s: list %d does not decode to itself", c.Name(), ds.Name, i)
		}
	}
	for _, reuse := range []bool{false, true} {
		speeds := make([]float64, 0, runs)
		for range runs {
			reps := 0
			t0 := time.Now()
			for time.Since(t0) < minTime || reps == 0 {
				if err := decodeAll(reuse); err != nil {
					return res, err
				}
				reps++
			}
			speeds = append(speeds, float64(reps*res.Values)/time.Since(t0).Seconds()/1e6)
		}
		slices.Sort(speeds)
		if reuse {
			res.DecodeBlockMIS = speeds[len(speeds)/2]
		} else {
			res.DecodeMIS = speeds[len(speeds)/2]
		}
	}
	return res, nil
}

// paperTable1 is Table 1 of "GPU decoding of integer lists" (bits per
// integer), by our codec names: BP32, SIMD-BP (bp128), VarintGB
// (varint-G4B), StreamVByte and the GPU formats.
var paperTable1 = map[string][4]float64{ // uniform sparse, uniform dense, clustered sparse, clustered dense
	"bp32":          {15.71, 6.67, 13.91, 5.40},
	"bp128":         {16.04, 6.99, 14.26, 5.60},
	"gpu-bp128":     {16.22, 7.18, 14.45, 5.79},
	"gpu-bp256":     {16.20, 7.18, 14.58, 5.86},
	"varint-G4B":    {17.76, 10.00, 16.27, 10.02},
	"streamvbyte":   {17.76, 10.00, 16.27, 10.02},
	"gpu-vbyte128":  {18.16, 10.50, 16.68, 10.52},
	"gpu-vbyte1024": {17.78, 10.06, 16.27, 10.08},
}

// PaperBPI returns the first paper's Table 1 figure for a codec on one of
// the synthetic datasets, if it has one.
func PaperBPI(codec, dataset string) (float64, bool) {
	row, ok := paperTable1[codec]
	if !ok {
		return 0, false
	}
	col := map[string]int{"uniform-sparse": 0, "uniform-dense": 1, "clustered-sparse": 2, "clustered-dense": 3}
	i, ok := col[dataset]
	if !ok {
		return 0, false
	}
	return row[i], true
}
