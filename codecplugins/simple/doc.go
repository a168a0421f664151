// Package simple holds the word-aligned codecs simple9 (Anh and Moffat) and
// simple16 (Zhang, Long and Suel). Each registers itself in init, with
// 128-value blocks.
//
// Format. A block is a sequence of little-endian 32-bit words (n == 0
// encodes to nothing). A word's top 4 bits are its selector, which names
// a layout: a split of the low 28 bits into fields, values stored from the
// low bits up. Simple-9 has nine layouts of equal fields (selectors 0-8:
// 28x1, 14x2, 9x3, 7x4, 5x5, 4x7, 3x9, 2x14, 1x28 bits). Simple-16 uses all
// sixteen selectors, some with fields of two or three widths (0: 28x1,
// 1: 7x2+14x1, 2: 7x1+7x2+7x1, 3: 14x1+7x2, 4: 14x2, 5: 1x4+8x3,
// 6: 1x3+4x4+3x3, 7: 7x4, 8: 4x5+2x4, 9: 2x4+4x5, 10: 3x6+2x5,
// 11: 2x5+3x6, 12: 4x7, 13: 1x10+2x9, 14: 2x14, 15: 1x28, lowest fields
// listed first), the standard table.
//
// The encoder is the usual greedy one: each word takes the first selector
// whose layout holds the next values. The block's last word may have more
// fields than values remain; those fields are zero, and the decoder takes
// only as many values as the block lacks.
//
// Escape. Plain Simple-9 and Simple-16 cannot store a value of 2^28 or
// more. Here such a value is written as an escape word followed by a word
// holding the value in full:
//
//	simple9   escape word 0x90000000 (selector 9, a spare one, with zero
//	          data bits); values >= 2^28 are escaped. Selector 9 with
//	          other data bits, and selectors 10-15, are corrupt.
//	simple16  escape word 0xFFFFFFFF (selector 15, the 1x28 layout, holding
//	          2^28-1); values >= 2^28-1 are escaped, so 2^28-1 itself takes
//	          two words, and everything below it is coded as in standard
//	          Simple-16.
//
// Decisions. Simple-16 has no spare selector; giving up the single value
// 2^28-1 of the 1x28 layout keeps all 16 standard layouts, where
// reassigning one of the mirrored pairs (1/3, 8/9, 10/11) would cost
// compression on ordinary gaps. An escape costs 8 bytes per large value,
// acceptable since d-gaps and freq-1 of 2^28 or more are rare.
//
// Speed. internal/gen writes simple_gen.go: the layout tables, the escape
// words and, per scheme, a decoder with one straight-line case per
// selector (constant shifts and masks, the output checked once per word
// through an array conversion), so a word costs one jump on its selector.
// It handles every word whose values all fit in the block; escapes, the
// partly used last word and bad input go to a short checked loop. A test
// compares every generated case with the layout tables.
//
// On a list of varied gaps that jump is mispredicted often, and it, not
// the unpacking, bounds the speed. Writing a fixed number of slots per
// word from a per-selector shift/mask table instead (8, then 16, then 28
// as the count requires) measured only about 5% faster, so the simpler
// switch stays.
//
// DecodeWords16, the decoder package pfor uses for its exceptions' plain
// Simple-16, takes that table route in AVX2 assembly (internal/gensimd):
// the word broadcast, one variable shift and one AND per eight fields, 28
// fields stored whatever the selector, no branch on it; on newpfor's
// exceptions it took AND queries on the RFC passages to 0.91x the time.
// The simple9 and simple16 codecs keep the switch.
//
//go:generate go run ./internal/gen -o simple_gen.go
package simple
