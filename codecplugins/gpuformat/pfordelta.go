package gpuformat

import (
	"encoding/binary"
	"math/bits"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/codecplugins/bp/bitpack"
)

// PForDelta is gpu-pfordelta: every value's low b bits in a b-bit slot, b
// one width for the whole list; the exceptions' overflow bits and position
// gaps in two arrays that are themselves PFor-compressed, recursively, to
// a fixed depth. See the package doc.
type PForDelta struct {
	b     int  // slot width for every block, when fixed
	fixed bool // set by ForList
}

const (
	pforName = "gpu-pfordelta"
	// PForBlockSize is gpu-pfordelta's block size: one warp's 128 values.
	PForBlockSize = 128
	// PForMaxDepth is the depth of the deepest sequence: the root block is
	// at depth 0, its exception arrays at 1, theirs at PForMaxDepth, where
	// a sequence has no exceptions of its own.
	PForMaxDepth = 2
	// PForMaxNodes bounds the sequences in one block: 1 + 2 + 4.
	PForMaxNodes = 7
)

func init() { codecplugins.Register(PForDelta{}) }

// Name implements codecplugins.Codec.
func (PForDelta) Name() string { return pforName }

// BlockSize implements codecplugins.Codec.
func (PForDelta) BlockSize() int { return PForBlockSize }

// ForList implements codecplugins.ListEncoder: the returned codec encodes
// every block of the list with one slot width, chosen for the whole list.
func (PForDelta) ForList(values []uint32) codecplugins.Codec {
	return PForDelta{b: chooseWidth(values), fixed: true}
}

// Width is the slot width the codec gives every block, or -1 when it
// chooses one per block (the registered codec, before ForList).
func (c PForDelta) Width() int {
	if !c.fixed {
		return -1
	}
	return c.b
}

// AppendBlock implements codecplugins.Codec.
func (c PForDelta) AppendBlock(dst []byte, v []uint32) []byte {
	checkLen(pforName, len(v), PForBlockSize)
	b := c.b
	if !c.fixed {
		b = chooseWidth(v)
	}
	var t pforTree
	t.build(v, b, 0)
	for _, nd := range t.nodes[:t.n] {
		dst = binary.LittleEndian.AppendUint16(dst, uint16(nd.b|nd.e<<6))
	}
	if t.n%2 == 1 {
		dst = append(dst, 0, 0)
	}
	for _, nd := range t.nodes[:t.n] {
		dst = appendPacked(dst, nd.v, nd.b)
	}
	return dst
}

// pforTree is a block's sequences in preorder, as the encoder builds them.
type pforTree struct {
	nodes [PForMaxNodes]struct {
		v    []uint32
		b, e int
	}
	n int
}

// build appends the sequence v with slot width b at depth, then, if some
// values overflow b bits, its position-gap and overflow-minus-one arrays.
func (t *pforTree) build(v []uint32, b, depth int) {
	i := t.n
	t.n++
	t.nodes[i].v, t.nodes[i].b = v, b
	if b >= 32 {
		return
	}
	var gaps, highs []uint32
	prev := -1
	for j, x := range v {
		if x>>b != 0 {
			gaps = append(gaps, uint32(j-prev-1))
			highs = append(highs, x>>b-1)
			prev = j
		}
	}
	if len(gaps) == 0 {
		return
	}
	t.nodes[i].e = len(gaps)
	t.build(gaps, childWidth(gaps, depth+1), depth+1)
	t.build(highs, childWidth(highs, depth+1), depth+1)
}

// childWidth is the slot width of an exception array at depth: the
// array's own width at the last depth, else the width that minimizes the
// array's exact encoded size together with its children, which sit at the
// last depth.
func childWidth(x []uint32, depth int) int {
	w := bitpack.Width(x)
	if depth == PForMaxDepth {
		return w
	}
	best, bestSize := w, 2+4*words(len(x), w)
	for b := 0; b < w; b++ {
		e, gapOr, highOr, prev := 0, uint32(0), uint32(0), -1
		for j, y := range x {
			if y>>b != 0 {
				gapOr |= uint32(j - prev - 1)
				highOr |= y>>b - 1
				prev = j
				e++
			}
		}
		size := 2 + 4*words(len(x), b) + 4 + 4*words(e, bits.Len32(gapOr)) + 4*words(e, bits.Len32(highOr))
		if size < bestSize {
			best, bestSize = b, size
		}
	}
	return best
}

// proxySize is the encoded size in bytes of v with root width b when its
// exception arrays are packed in full width: an upper bound on the real
// size, where they are compressed further, and cheap enough to compute for
// every width.
func proxySize(v []uint32, b int) int {
	size := 4 + 4*words(len(v), b)
	if b >= 32 {
		return size
	}
	e, gapOr, highOr, prev := 0, uint32(0), uint32(0), -1
	for j, x := range v {
		if x>>b != 0 {
			gapOr |= uint32(j - prev - 1)
			highOr |= x>>b - 1
			prev = j
			e++
		}
	}
	if e > 0 {
		size += 4 + 4*words(e, bits.Len32(gapOr)) + 4*words(e, bits.Len32(highOr))
	}
	return size
}

// sampleBlocks is how many blocks of a list chooseWidth looks at, at most.
const sampleBlocks = 64

// chooseWidth picks the root slot width, from 0 to the bit length of the
// largest value, that minimizes the summed proxySize of the list's blocks;
// for a list of more than sampleBlocks blocks, of sampleBlocks evenly spaced
// ones. Ties go to the smaller width.
func chooseWidth(list []uint32) int {
	nb := (len(list) + PForBlockSize - 1) / PForBlockSize
	sample := make([][]uint32, 0, min(nb, sampleBlocks))
	for i := range min(nb, sampleBlocks) {
		k := i
		if nb > sampleBlocks {
			k = i * nb / sampleBlocks
		}
		sample = append(sample, list[k*PForBlockSize:min(len(list), (k+1)*PForBlockSize)])
	}
	w := 0
	for _, v := range sample {
		w = max(w, bitpack.Width(v))
	}
	best, bestSize := w, -1
	for b := 0; b <= w; b++ {
		size := 0
		for _, v := range sample {
			size += proxySize(v, b)
		}
		if bestSize < 0 || size < bestSize {
			best, bestSize = b, size
		}
	}
	return best
}

// DecodeBlock implements codecplugins.Codec.
func (PForDelta) DecodeBlock(dst []uint32, src []byte, n int) error {
	if n < 0 || n > PForBlockSize {
		return codecplugins.Corrupt(pforName, 0, "value count out of range")
	}
	var nodes [PForMaxNodes]pforNode
	cnt := 0
	if _, err := parsePFor(&nodes, &cnt, src, n, 0); err != nil {
		return err
	}
	off := 4 * ((2*cnt + 3) / 4)
	for i := range nodes[:cnt] {
		nodes[i].off = off
		off += 4 * words(nodes[i].n, nodes[i].b)
	}
	if len(src) < off {
		return codecplugins.Corrupt(pforName, len(src), "truncated slots")
	}
	unpack(dst[:n], src[nodes[0].off:], nodes[0].b)
	if cnt == 1 {
		return nil
	}
	return decodeExceptions(&nodes, cnt, src, dst[:n])
}

// pforNode is one parsed sequence header.
type pforNode struct {
	n, b, e int // values, slot width, exceptions
	size    int // sequences in its subtree, itself included
	off     int // byte offset of its slots in the block
}

// parsePFor reads the header of the sequence of n values at depth, and
// then its children's, in preorder; it returns the subtree's size.
func parsePFor(nodes *[PForMaxNodes]pforNode, cnt *int, src []byte, n, depth int) (int, error) {
	i := *cnt
	if len(src) < 2*i+2 {
		return 0, codecplugins.Corrupt(pforName, len(src), "truncated sequence header")
	}
	h := le16(src[2*i:])
	b, e := int(h&63), int(h>>6)
	switch {
	case b > 32:
		return 0, codecplugins.Corrupt(pforName, 2*i, "slot width above 32")
	case e > n:
		return 0, codecplugins.Corrupt(pforName, 2*i, "more exceptions than values")
	case e > 0 && (b == 32 || depth == PForMaxDepth):
		return 0, codecplugins.Corrupt(pforName, 2*i, "exceptions in a sequence that cannot have any")
	}
	nodes[i] = pforNode{n: n, b: b, e: e, size: 1}
	*cnt++
	if e > 0 {
		for range 2 {
			s, err := parsePFor(nodes, cnt, src, e, depth+1)
			if err != nil {
				return 0, err
			}
			nodes[i].size += s
		}
	}
	return nodes[i].size, nil
}

// decodeExceptions decodes the block's exception sequences, children before
// parents (reverse preorder), each patching its exceptions in from its two
// children; root holds the root's decoded slots.
func decodeExceptions(nodes *[PForMaxNodes]pforNode, cnt int, src []byte, root []uint32) error {
	var scratch [PForMaxNodes][PForBlockSize]uint32 // row 0 unused: the root is decoded in place
	for i := cnt - 1; i >= 0; i-- {
		nd := nodes[i]
		vals := root
		if i > 0 {
			vals = scratch[i][:nd.n]
			unpackSlow(vals, src[nd.off:], nd.b)
		}
		if nd.e == 0 {
			continue
		}
		j := i + 1 + nodes[i+1].size
		gaps, highs := scratch[i+1][:nd.e], scratch[j][:nd.e]
		p := -1
		for k, g := range gaps {
			p += int(g) + 1
			if p >= nd.n {
				return codecplugins.Corrupt(pforName, nd.off, "exception position past the sequence")
			}
			hi := uint64(highs[k]) + 1
			if hi >= 1<<(32-nd.b) {
				return codecplugins.Corrupt(pforName, nd.off, "exception overflows 32 bits")
			}
			vals[p] |= uint32(hi << nd.b)
		}
	}
	return nil
}
