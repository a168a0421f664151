package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// Positions: positions.bin holds, for every block of postings, the token
// positions of its postings (0-based places in the document's analyzed term
// sequence), so that a cursor finds a posting's positions by decoding its
// own block only. A block's positions are, posting by posting, the first
// position and then each gap less one (positions strictly increase), freq
// values a posting; the block's values are cut into chunks of the
// positions codec's block size, each written as its encoded length
// (uvarint) and the codec's bytes. After the blocks comes the block table:
// each block's encoded size (uvarints), then the number of blocks and the
// table's byte offset (uint64, little-endian) and the magic "gsposits".

// positionsMagic ends positions.bin.
const positionsMagic = "gsposits"

// positionsTrailer is the fixed tail: block count, table offset, magic.
const positionsTrailer = 8 + 8 + len(positionsMagic)

// appendPositionGaps appends one posting's positions (strictly increasing)
// as values: the first, then each gap less one.
func appendPositionGaps(vals, positions []uint32) []uint32 {
	for i, p := range positions {
		if i > 0 {
			p -= positions[i-1] + 1
		}
		vals = append(vals, p)
	}
	return vals
}

// appendPositionsBlock encodes one block's position values (the
// appendPositionGaps of its postings, in order) in chunks of the codec's
// block size.
func appendPositionsBlock(dst []byte, c codecplugins.Codec, vals []uint32) []byte {
	if le, ok := c.(codecplugins.ListEncoder); ok {
		c = le.ForList(vals)
	}
	bs := c.BlockSize()
	var chunk []byte
	for start := 0; start < len(vals); start += bs {
		chunk = c.AppendBlock(chunk[:0], vals[start:min(start+bs, len(vals))])
		dst = binary.AppendUvarint(dst, uint64(len(chunk)))
		dst = append(dst, chunk...)
	}
	return dst
}

// decodePositionsBlock decodes a block's positions for postings of the
// given frequencies (each at least 1) into dst[:sum of freqs], as absolute
// positions, posting after posting. It returns an error wrapping
// ErrCorrupt for malformed input, never panics, and reads nothing past
// src.
func decodePositionsBlock(dst []uint32, c codecplugins.Codec, src []byte, freqs []uint32) ([]uint32, error) {
	var n uint64
	for _, f := range freqs {
		if f == 0 {
			return dst, fmt.Errorf("%w: zero frequency", ErrCorrupt)
		}
		n += uint64(f)
	}
	bs := c.BlockSize()
	// Every chunk takes at least its length's byte: bound n before
	// allocating for it.
	if n > uint64(len(src))*uint64(bs) {
		return dst, fmt.Errorf("%w: %d positions in %d bytes", ErrCorrupt, n, len(src))
	}
	if uint64(cap(dst)) < n {
		dst = make([]uint32, n)
	}
	dst = dst[:n]
	for off := 0; off < len(dst); off += bs {
		size, k := binary.Uvarint(src)
		if k <= 0 || size > uint64(len(src)-k) {
			return dst[:0], fmt.Errorf("%w: positions chunk length at value %d", ErrCorrupt, off)
		}
		m := min(bs, len(dst)-off)
		if err := c.DecodeBlock(dst[off:off+m], src[k:k+int(size)], m); err != nil {
			return dst[:0], positionsCorrupt(err)
		}
		src = src[k+int(size):]
	}
	i := 0
	for _, f := range freqs {
		prev := uint64(dst[i])
		for j := 1; j < int(f); j++ {
			p := prev + uint64(dst[i+j]) + 1
			if p > math.MaxUint32 {
				return dst[:0], fmt.Errorf("%w: position past 2^32", ErrCorrupt)
			}
			dst[i+j] = uint32(p)
			prev = p
		}
		i += int(f)
	}
	return dst, nil
}

// positionsCorrupt wraps a codec's error so that it wraps ErrCorrupt.
func positionsCorrupt(err error) error {
	if errors.Is(err, ErrCorrupt) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrCorrupt, err)
}

// appendPositionsTable appends the block table and the trailer to a
// positions file whose blocks take dataLen bytes.
func appendPositionsTable(dst []byte, sizes []uint64, dataLen uint64) []byte {
	for _, s := range sizes {
		dst = binary.AppendUvarint(dst, s)
	}
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(sizes)))
	dst = binary.LittleEndian.AppendUint64(dst, dataLen)
	return append(dst, positionsMagic...)
}

// parsePositionsTable reads a positions file's block table: B+1 byte
// offsets of its blocks, checked to tile the data exactly for blocks
// blocks.
func parsePositionsTable(b []byte, blocks uint64) ([]uint64, error) {
	if len(b) < positionsTrailer || string(b[len(b)-len(positionsMagic):]) != positionsMagic {
		return nil, fmt.Errorf("no positions trailer")
	}
	t := b[len(b)-positionsTrailer:]
	count, dataLen := binary.LittleEndian.Uint64(t), binary.LittleEndian.Uint64(t[8:])
	if count != blocks {
		return nil, fmt.Errorf("%d blocks, the postings have %d", count, blocks)
	}
	if dataLen > uint64(len(b)-positionsTrailer) {
		return nil, fmt.Errorf("block table at %d, past the file's end", dataLen)
	}
	table := b[dataLen : len(b)-positionsTrailer]
	// Every size takes at least a byte: bound the table before allocating.
	if count > uint64(len(table)) {
		return nil, fmt.Errorf("%d blocks in a table of %d bytes", count, len(table))
	}
	offs := make([]uint64, count+1)
	for i := range count {
		s, k := binary.Uvarint(table)
		if k <= 0 || s > dataLen-offs[i] {
			return nil, fmt.Errorf("block %d's size is damaged or reaches past the data", i)
		}
		offs[i+1] = offs[i] + s
		table = table[k:]
	}
	if len(table) != 0 || offs[count] != dataLen {
		return nil, fmt.Errorf("blocks take %d bytes of %d", offs[count], dataLen)
	}
	return offs, nil
}
