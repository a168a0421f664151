package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The lexicon is cut into segments of segmentTerms terms, each its own
// deflate stream whose front coding starts afresh, so that Open inflates
// them in parallel. A table after the last stream locates them: one record
// per segment and one more for the end, each six uint64 (little-endian):
//
//	offset     where the segment's stream starts in lexicon.bin
//	term       the index of its first term
//	block      the index of its first block
//	doc, freq  the byte offsets of its first blocks in docids.bin, freqs.bin
//	termBytes  the bytes of all the terms before it
//
// then the values the lexicon's score bounds were computed with (the
// document count, uint64, and BM25's k1, b and the average document
// length, float32 bits as uint32), the record count (uint64) and the 8-byte
// magic segmentMagic. The bounds' values lie under lexicon.bin's checksum,
// so that Open can tell a meta.json whose values would make the stored
// bounds stale, and pruning engines disagree with the exhaustive one.

// segmentTerms is the number of terms per lexicon segment (the last may
// have fewer); a variable so that tests can make segments small.
var segmentTerms uint64 = 1 << 14

const (
	segmentMagic      = "gslexseg"
	segmentRecordSize = 6 * 8
	boundsSize        = 8 + 3*4
)

// segment is one record of the segment table.
type segment struct {
	offset, term, block, docOff, freqOff, termBytes uint64
}

// boundsParams are the values the score bounds were computed with.
type boundsParams struct {
	docs          uint64
	k1, b, avgLen float32
}

// appendSegments appends the segment table, the bounds' values, the count
// and the magic to dst.
func appendSegments(dst []byte, segs []segment, p boundsParams) []byte {
	for _, s := range segs {
		for _, v := range []uint64{s.offset, s.term, s.block, s.docOff, s.freqOff, s.termBytes} {
			dst = binary.LittleEndian.AppendUint64(dst, v)
		}
	}
	dst = binary.LittleEndian.AppendUint64(dst, p.docs)
	for _, f := range []float32{p.k1, p.b, p.avgLen} {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
	}
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(segs)))
	return append(dst, segmentMagic...)
}

// parseSegments reads the segment table at the end of data and returns it
// with the bounds' values and the streams before it. It checks that the
// records are in order and that the first starts everything at zero and
// the last ends the streams.
func parseSegments(data []byte) ([]segment, boundsParams, []byte, error) {
	var p boundsParams
	n := len(data)
	if n < 16+boundsSize || string(data[n-8:]) != segmentMagic {
		return nil, p, nil, errors.New("no segment table at the end")
	}
	count := binary.LittleEndian.Uint64(data[n-16:])
	if count < 1 || count > uint64(n-16-boundsSize)/segmentRecordSize {
		return nil, p, nil, fmt.Errorf("segment table of %d records in a %d-byte file", count, n)
	}
	bp := data[n-16-boundsSize : n-16]
	p.docs = binary.LittleEndian.Uint64(bp)
	f := func(k int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(bp[8+4*k:])) }
	p.k1, p.b, p.avgLen = f(0), f(1), f(2)
	table := data[n-16-boundsSize-int(count)*segmentRecordSize : n-16-boundsSize]
	body := data[:n-16-boundsSize-len(table)]
	segs := make([]segment, count)
	for i := range segs {
		r := table[i*segmentRecordSize:]
		u := func(k int) uint64 { return binary.LittleEndian.Uint64(r[8*k:]) }
		segs[i] = segment{offset: u(0), term: u(1), block: u(2), docOff: u(3), freqOff: u(4), termBytes: u(5)}
	}
	if segs[0] != (segment{}) {
		return nil, p, nil, fmt.Errorf("first segment starts at %+v, not at zero", segs[0])
	}
	for i := 1; i < len(segs); i++ {
		a, b := segs[i-1], segs[i]
		if b.offset <= a.offset || b.term < a.term || b.block < a.block || b.block-a.block < b.term-a.term ||
			b.docOff < a.docOff || b.freqOff < a.freqOff || b.termBytes < a.termBytes {
			return nil, p, nil, fmt.Errorf("segment %d (%+v) does not follow %+v", i, b, a)
		}
	}
	if last := segs[len(segs)-1]; last.offset != uint64(len(body)) {
		return nil, p, nil, fmt.Errorf("segments end at byte %d, the streams at %d", last.offset, len(body))
	}
	return segs, p, body, nil
}
