// Package codecplugins defines the posting-list codec interface and the
// registry through which codecs are chosen by name.
//
// A codec compresses blocks of unsigned 32-bit integers. The index cuts every
// posting list into blocks of BlockSize values; docids are stored as d-gaps
// relative to the previous block's last docid (kept in the skip table) and
// frequencies as freq-1, so a codec only ever sees small non-negative
// integers, never absolute docids.
//
// Codec packages register themselves in init, as database/sql drivers do:
// import the family (or codecplugins/all) for its side effect, then call
// Lookup with the name stored in the index or the config.
//
// Decoders treat their input as untrusted: given corrupt or truncated bytes
// they return an error wrapping ErrCorrupt; they never panic and never read
// past the end of src.
package codecplugins

import (
	"errors"
	"fmt"
	"math"
)

// Codec encodes and decodes blocks of at most BlockSize values.
type Codec interface {
	// Name is the codec's registry name, recorded in the index.
	Name() string
	// BlockSize is the number of values per full block.
	BlockSize() int
	// AppendBlock appends the encoding of v (len(v) <= BlockSize) to dst.
	AppendBlock(dst []byte, v []uint32) []byte
	// DecodeBlock decodes exactly n values from src into dst[:n]. It
	// ignores bytes after the block and returns an error wrapping
	// ErrCorrupt when src is too short or malformed. len(dst) >= n.
	DecodeBlock(dst []uint32, src []byte, n int) error
}

// ErrCorrupt is wrapped by every error a decoder returns for bad input.
var ErrCorrupt = errors.New("corrupt block")

// ErrUnknownCodec is wrapped by Lookup when no codec has the given name.
var ErrUnknownCodec = errors.New("unknown codec")

// CorruptError reports malformed or truncated encoded input.
type CorruptError struct {
	Codec  string // codec name
	Offset int    // byte offset in the block where decoding failed
	Reason string // what was wrong
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s: corrupt block at byte %d: %s", e.Codec, e.Offset, e.Reason)
}

// Unwrap makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Unwrap() error { return ErrCorrupt }

// Corrupt is a shorthand for building a *CorruptError.
func Corrupt(codec string, offset int, reason string) error {
	return &CorruptError{Codec: codec, Offset: offset, Reason: reason}
}

// ListEncoder is an optional interface for codecs whose block encoding
// depends on the whole list, such as gpu-pfordelta's one bit width per list.
// Before encoding a list's blocks, the index writer calls ForList with every
// value of the list (the d-gaps or freq-1 values, in order) and encodes the
// blocks with the codec it returns. Blocks so encoded must decode with the
// registered codec's DecodeBlock alone: whatever list-level parameter they
// share is carried in each block.
type ListEncoder interface {
	Codec
	ForList(values []uint32) Codec
}

// PrefixDecoder is an optional interface for codecs that can turn a block
// of d-gaps into docids while decoding it. A decoder that adds the running
// sum while the values are still in its vector registers spends far less
// per block than DecodeBlock followed by a separate prefix-sum loop, whose
// one-add-per-value dependency chain then dominates.
type PrefixDecoder interface {
	Codec
	// DecodeBlockPrefix decodes n values v as DecodeBlock does and writes
	// dst[i] = base + v[0] + ... + v[i]. It returns an error wrapping
	// ErrCorrupt where DecodeBlock would, and where a sum exceeds
	// 2^32-1; dst[:n] is then undefined.
	DecodeBlockPrefix(dst []uint32, src []byte, n int, base uint32) error
}

// DecodePrefix is a PrefixDecoder's slow path for blocks its fused kernel
// does not take: c.DecodeBlock, then the running sums from base in 64
// bits, so that a sum past 2^32-1 is found and reported as corrupt.
func DecodePrefix(c Codec, name string, dst []uint32, src []byte, n int, base uint32) error {
	if err := c.DecodeBlock(dst, src, n); err != nil {
		return err
	}
	sum := uint64(base)
	for i, v := range dst[:n] {
		sum += uint64(v)
		dst[i] = uint32(sum)
	}
	if sum > math.MaxUint32 {
		return Corrupt(name, 0, "running sum exceeds 32 bits")
	}
	return nil
}
