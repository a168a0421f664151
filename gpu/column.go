package gpu

import (
	"errors"
	"fmt"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index"
)

// Output selects what a decode writes.
type Output int

const (
	// Gaps writes the stored values: d-gaps for docids, freq-1 for
	// frequencies.
	Gaps Output = iota
	// DocIDs writes docids: each block's d-gaps prefix-summed from its base.
	DocIDs
)

func (o Output) String() string {
	if o == DocIDs {
		return "docids"
	}
	return "gaps"
}

// kernels maps each codec the GPU decodes to its kernels' name stem in
// gpu/kernels/decode.cu (decode_<stem>_gaps, decode_<stem>_docids and
// decodepair_<stem>, made by its DEFINE_DECODE): the one table of the
// decoders, which TestDecodeKernelsInPTX checks against the compiled
// decode.ptx.
var kernels = map[string]string{
	"gpu-bp128":     "bp128",
	"gpu-bp256":     "bp256",
	"gpu-vbyte128":  "vbyte128",
	"gpu-vbyte1024": "vbyte1024",
	"gpu-pfordelta": "pfordelta",
	"gpu-rice":      "rice",
}

// decodeKernels names the kernels of kernels/decode.cu: copy_u4 and each
// codec's three decoders.
func decodeKernels() []string {
	names := []string{"copy_u4"}
	for _, stem := range kernels {
		names = append(names, "decode_"+stem+"_gaps", "decode_"+stem+"_docids", "decodepair_"+stem)
	}
	return names
}

// Decodable reports whether the GPU has a decoder for the named codec.
func Decodable(codec string) bool {
	_, ok := kernels[codec]
	return ok
}

// ErrFormat is wrapped by the errors about a column the GPU cannot take:
// a codec without a GPU decoder, or inconsistent offsets or counts.
var ErrFormat = errors.New("gpu: unusable column")

// HostColumn is an encoded column as the GPU takes it, in host memory:
// blocks of one codec, their byte offsets (the skip table's offset column,
// the GPU formats' endpoints), each block's value count and, for docids,
// each block's base: the docid its d-gaps start from, the previous block's
// last docid or 0 for a list's first block.
type HostColumn struct {
	Codec     string   // registry name of the blocks' codec
	BlockSize int      // the index's block size: the decode's output stride
	Data      []byte   // the encoded blocks
	Offsets   []uint64 // block i is Data[Offsets[i]:Offsets[i+1]]
	Counts    []uint32 // values in each block
	Bases     []uint32 // docid before each block; nil for other values
}

// NumBlocks is the number of blocks in the column.
func (h *HostColumn) NumBlocks() int { return len(h.Counts) }

// Values is the total number of values in the column.
func (h *HostColumn) Values() int {
	n := 0
	for _, c := range h.Counts {
		n += int(c)
	}
	return n
}

// Validate checks that the GPU can decode the column safely: a known
// format, offsets that rise and span Data, counts within the codec's and
// the column's block size, block size a multiple of 4 (output rows start
// 16-byte aligned), and one base per block if there are bases.
func (h *HostColumn) Validate() error {
	c, err := codecplugins.Lookup(h.Codec)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if !Decodable(h.Codec) {
		return fmt.Errorf("%w: codec %s has no GPU decoder (convert the index to a gpu-* codec)", ErrFormat, h.Codec)
	}
	nb := len(h.Counts)
	switch {
	case h.BlockSize <= 0 || h.BlockSize%4 != 0:
		return fmt.Errorf("%w: block size %d is not a positive multiple of 4", ErrFormat, h.BlockSize)
	case len(h.Offsets) != nb+1:
		return fmt.Errorf("%w: %d offsets for %d blocks", ErrFormat, len(h.Offsets), nb)
	case h.Bases != nil && len(h.Bases) != nb:
		return fmt.Errorf("%w: %d bases for %d blocks", ErrFormat, len(h.Bases), nb)
	case h.Offsets[0] != 0 || h.Offsets[nb] != uint64(len(h.Data)):
		return fmt.Errorf("%w: offsets do not span the %d data bytes", ErrFormat, len(h.Data))
	}
	limit := uint32(min(c.BlockSize(), h.BlockSize))
	for i, n := range h.Counts {
		if h.Offsets[i+1] < h.Offsets[i] {
			return fmt.Errorf("%w: offsets decrease at block %d", ErrFormat, i+1)
		}
		if n > limit {
			return fmt.Errorf("%w: block %d has %d values, more than %d", ErrFormat, i, n, limit)
		}
	}
	return nil
}

// EncodeList encodes one posting list's docids (strictly increasing) as the
// index does: blocks of the codec's block size, d-gaps from the previous
// block's last docid, one codec per list if c is a ListEncoder.
func EncodeList(c codecplugins.Codec, docids []uint32) HostColumn {
	gaps := make([]uint32, len(docids))
	prev := uint32(0)
	for i, d := range docids {
		gaps[i] = d - prev
		prev = d
	}
	h := EncodeValues(c, gaps)
	h.Bases = make([]uint32, 0, h.NumBlocks())
	for i := range h.NumBlocks() {
		if i == 0 {
			h.Bases = append(h.Bases, 0)
		} else {
			h.Bases = append(h.Bases, docids[i*h.BlockSize-1])
		}
	}
	return h
}

// EncodeValues encodes values (for example freq-1) in blocks of the
// codec's block size, with no bases.
func EncodeValues(c codecplugins.Codec, values []uint32) HostColumn {
	bs := c.BlockSize()
	h := HostColumn{Codec: c.Name(), BlockSize: bs, Offsets: []uint64{0}}
	enc := c
	if le, ok := c.(codecplugins.ListEncoder); ok {
		enc = le.ForList(values)
	}
	for start := 0; start < len(values); start += bs {
		v := values[start:min(start+bs, len(values))]
		h.Data = enc.AppendBlock(h.Data, v)
		h.Offsets = append(h.Offsets, uint64(len(h.Data)))
		h.Counts = append(h.Counts, uint32(len(v)))
	}
	return h
}

// IndexColumns describes an index's docid and frequency files as host
// columns. Data and Offsets alias the index's mapped files; counts come
// from the lexicon's document frequencies, and bases from the skip table's
// last docids.
func IndexColumns(ix *index.Index) (docids, freqs HostColumn) {
	dc, fc := ix.Codecs()
	bs := ix.BlockSize()
	sk := ix.Skips()
	docData, freqData := ix.Data()
	nb := len(sk.LastDocIDs)
	counts := make([]uint32, nb)
	bases := make([]uint32, nb)
	for t := range ix.NumTerms() {
		ti := ix.Term(t)
		first, n := int(ti.FirstBlock), ti.NumBlocks(bs)
		for i := range n {
			b := first + i
			counts[b] = uint32(bs)
			if i > 0 {
				bases[b] = sk.LastDocIDs[b-1]
			}
		}
		if n > 0 {
			counts[first+n-1] = ti.DF - uint32((n-1)*bs)
		}
	}
	docids = HostColumn{Codec: dc.Name(), BlockSize: bs, Data: docData, Offsets: sk.DocOffsets, Counts: counts, Bases: bases}
	freqs = HostColumn{Codec: fc.Name(), BlockSize: bs, Data: freqData, Offsets: sk.FreqOffsets, Counts: counts}
	return docids, freqs
}

// Decode is the CPU reference for the GPU decoders: it decodes the column's
// blocks (all of them when blocks is nil) with the codec's DecodeBlock and
// writes the k-th block's values at dst[k*BlockSize:], as d-gaps or, with
// DocIDs, prefix-summed from the block's base. Rows past a block's count
// are left as they were.
func (h *HostColumn) Decode(dst []uint32, blocks []uint32, out Output) error {
	c, err := codecplugins.Lookup(h.Codec)
	if err != nil {
		return err
	}
	if out == DocIDs && h.Bases == nil {
		return fmt.Errorf("%w: docid output needs bases", ErrFormat)
	}
	nsel := h.NumBlocks()
	if blocks != nil {
		nsel = len(blocks)
	}
	if len(dst) < nsel*h.BlockSize {
		return fmt.Errorf("gpu: decode of %d blocks of %d into %d values", nsel, h.BlockSize, len(dst))
	}
	for k := range nsel {
		b := k
		if blocks != nil {
			b = int(blocks[k])
		}
		if b >= h.NumBlocks() {
			return fmt.Errorf("gpu: block %d of %d", b, h.NumBlocks())
		}
		n := int(h.Counts[b])
		row := dst[k*h.BlockSize : k*h.BlockSize+n]
		if err := c.DecodeBlock(row, h.Data[h.Offsets[b]:h.Offsets[b+1]], n); err != nil {
			return fmt.Errorf("gpu: block %d: %w", b, err)
		}
		if out == DocIDs {
			acc := h.Bases[b]
			for i := range row {
				acc += row[i]
				row[i] = acc
			}
		}
	}
	return nil
}
