package gpu

import (
	"fmt"
	"math"
)

// textPer is the bytes of text each thread of text_counts and text_words
// reads (TEXT_PER in kernels/analytics.cu); a CTA of 256 reads a chunk.
const (
	textPer   = 32
	textChunk = textPer * 256
	textSpill = 256        // the longest word text_words can look up (TEXT_SPILL)
	emptyWord = ^uint64(0) // an empty slot of a dictTable
)

// dictTable is a dictionary laid out for text_lookup: the words' bytes
// end to end, where each starts (one more entry: the end), and an
// open-addressing table at the FNV-1a hash h of each word's bytes, probed
// linearly, whose slots hold h << 32 | word id (emptyWord when empty); its
// size is a power of two, at least twice the words.
type dictTable struct {
	bytes []byte
	off   []uint32
	slots []uint64
}

// newDictTable lays dict out (word id = index).
func newDictTable(dict []string) (*dictTable, error) {
	t := &dictTable{off: make([]uint32, 1, len(dict)+1)}
	for _, w := range dict {
		if len(w) > textSpill {
			return nil, fmt.Errorf("gpu: the word %.20q... is longer than the %d bytes the text kernels look up", w, textSpill)
		}
		if len(t.bytes)+len(w) > math.MaxUint32 {
			return nil, fmt.Errorf("gpu: the dictionary holds more than 4 GiB of words")
		}
		t.bytes = append(t.bytes, w...)
		t.off = append(t.off, uint32(len(t.bytes)))
	}
	n := 2
	for n < 2*len(dict) {
		n *= 2
	}
	t.slots = make([]uint64, n)
	for i := range t.slots {
		t.slots[i] = emptyWord
	}
	mask := uint32(n - 1)
	for id, w := range dict {
		h := fnv1a([]byte(w))
		i := h & mask
		for t.slots[i] != emptyWord {
			i = (i + 1) & mask
		}
		t.slots[i] = uint64(h)<<32 | uint64(id)
	}
	return t, nil
}

// fnv1a is the 32-bit FNV-1a hash of b, as text_lookup computes it.
func fnv1a(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// padText returns text followed by spaces up to a whole number of
// chunks, at least one, so that every word ends at white space.
func padText(text []byte) []byte {
	n := (len(text) + 1 + textChunk - 1) / textChunk * textChunk
	out := make([]byte, n)
	copy(out, text)
	for i := len(text); i < n; i++ {
		out[i] = ' '
	}
	return out
}
