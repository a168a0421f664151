package index

import (
	"encoding/binary"
	"errors"
	"fmt"
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
// then the record count (uint64) and the 8-byte magic segmentMagic.

// segmentTerms is the number of terms per lexicon segment (the last may
// have fewer); a variable so that tests can make segments small.
var segmentTerms uint64 = 1 << 14

const (
	segmentMagic      = "gslexseg"
	segmentRecordSize = 6 * 8
)

// segment is one record of the segment table.
type segment struct {
	offset, term, block, docOff, freqOff, termBytes uint64
}

// appendSegments appends the segment table, count and magic to dst.
func appendSegments(dst []byte, segs []segment) []byte {
	for _, s := range segs {
		for _, v := range []uint64{s.offset, s.term, s.block, s.docOff, s.freqOff, s.termBytes} {
			dst = binary.LittleEndian.AppendUint64(dst, v)
		}
	}
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(segs)))
	return append(dst, segmentMagic...)
}

// parseSegments reads the segment table at the end of data and returns it
// with the streams before it. It checks that the records are in order and
// that the first starts everything at zero and the last ends the streams.
func parseSegments(data []byte) ([]segment, []byte, error) {
	n := len(data)
	if n < 16 || string(data[n-8:]) != segmentMagic {
		return nil, nil, errors.New("no segment table at the end")
	}
	count := binary.LittleEndian.Uint64(data[n-16:])
	if count < 1 || count > uint64(n-16)/segmentRecordSize {
		return nil, nil, fmt.Errorf("segment table of %d records in a %d-byte file", count, n)
	}
	table := data[n-16-int(count)*segmentRecordSize : n-16]
	body := data[:len(data)-16-len(table)]
	segs := make([]segment, count)
	for i := range segs {
		r := table[i*segmentRecordSize:]
		u := func(k int) uint64 { return binary.LittleEndian.Uint64(r[8*k:]) }
		segs[i] = segment{offset: u(0), term: u(1), block: u(2), docOff: u(3), freqOff: u(4), termBytes: u(5)}
	}
	if segs[0] != (segment{}) {
		return nil, nil, fmt.Errorf("first segment starts at %+v, not at zero", segs[0])
	}
	for i := 1; i < len(segs); i++ {
		a, b := segs[i-1], segs[i]
		if b.offset <= a.offset || b.term < a.term || b.block < a.block || b.block-a.block < b.term-a.term ||
			b.docOff < a.docOff || b.freqOff < a.freqOff || b.termBytes < a.termBytes {
			return nil, nil, fmt.Errorf("segment %d (%+v) does not follow %+v", i, b, a)
		}
	}
	if last := segs[len(segs)-1]; last.offset != uint64(len(body)) {
		return nil, nil, fmt.Errorf("segments end at byte %d, the streams at %d", last.offset, len(body))
	}
	return segs, body, nil
}
