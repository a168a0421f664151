// Package varint holds the byte-aligned codecs: varint-SU (classic VByte,
// seven data bits per byte, the high bit marking continuation) and the
// grouped varint family. Each registers itself in init, with 128-value
// blocks.
//
// Formats (every value stored in 1 to 4 little-endian bytes, the fewest
// that hold it; n is the block's value count, and n == 0 encodes to
// nothing):
//
//	varint-G4B   groups of 4: a descriptor byte, value j's length-1 in
//	             bits 2j..2j+1, then the 4 values' bytes. The last group
//	             may hold fewer values; its unused descriptor bits are 0.
//	varint-G8B   groups of 8: two such descriptor bytes (values 0-3, 4-7),
//	             then the 8 values' bytes. The last group keeps both
//	             descriptor bytes even when it holds 4 values or fewer.
//	streamvbyte  all ceil(n/4) descriptor ("control") bytes first, laid
//	             out as in G4B, then all the data bytes.
//	varint-G8IU  9-byte groups: a descriptor byte, then 8 data bytes holding
//	             as many whole values as fit; the rest is zero padding.
//	             Descriptor bit j is 0 where data byte j ends a value and 1
//	             elsewhere (padding included): lengths in unary.
//	varint-G8CU  the values' bytes as one stream, cut into 8-byte units,
//	             each after its descriptor byte (bits as in G8IU); a value
//	             may begin in one unit and end in the next.
//
// These follow the varint family of Stepanov et al. and the naming of
// "SIMD decoding of posting lists" (G4B and G8B with one and two
// descriptor bytes; G8IU and G8CU, incomplete and complete units), and
// Lemire et al.'s Stream VByte.
//
// Decisions.
//
// The last G8IU group and the last G8CU unit of a block stop after the last
// value's byte instead of being padded to 8: a block of 128 values would
// otherwise carry up to 7 bytes of padding. Decoders treat the descriptor
// bits of the missing bytes as padding, so blocks may be concatenated.
//
// Decoders are strict where the encoder is: a G8IU or G8CU descriptor that
// ends more values than the block has left, a G8IU group that ends no
// value, and any value longer than 4 bytes are corrupt. Unused descriptor
// bits of the G4B, G8B and streamvbyte last group, and G8IU padding bytes,
// are ignored. A truncated block is always an error: every byte the
// encoder writes is needed to decode the block.
//
// Speed. Decoding is table-driven: a 256-entry table per descriptor family
// gives each value's offset, end and mask, so the inner loops have no
// branch per value and are unrolled per group. G4B, G8B and streamvbyte
// read each value with one 4-byte load at its offset, masked to its
// length, from a fixed 19-byte window whose masked offsets let the compiler
// drop the bounds checks. Where fewer than a window's bytes remain, the
// rest of the block is copied into a zero-padded stack buffer and decoded
// by the same loop, so no load passes src. G8IU and G8CU load a unit's 8
// data bytes as one uint64 and write all 8 output slots unconditionally
// (the next group overwrites the unused ones). Streamvbyte sums its
// control bytes' data sizes first and checks them against the input once,
// so its loop needs no per-group length check. Only the block's partial
// last group and truncated input take a byte-at-a-time path.
// No unsafe.
//
// Assembly. On amd64 (unless built with the purego tag) streamvbyte's full
// groups are decoded by an SSSE3 kernel (AVX-encoded at the AVX2 level)
// generated with avo by internal/gensimd (varint_amd64.s; go generate
// rewrites it, and a test fails when it is stale), chosen by
// internal/simd: one 16-byte load and one PSHUFB per group of
// four values, the shuffle mask and the group's size looked up by its
// control byte. Go first sums the group sizes from the control bytes (two
// popcounts per eight control bytes) and checks them against src, as the
// pure-Go path always did, so the kernel knows which loads stay inside src
// and reads nothing past it; errors and values match the pure-Go decoder's,
// which stays the reference and the fallback. internal/libsvb compares the
// kernel with the C library under a build tag.
//
// varint-SU has a masked VByte kernel (SSE4.1) in the same file: PMOVMSKB
// collects the continuation bits of 16 bytes; 16 one-byte values are
// widened straight from memory, runs of one- and two-byte values go
// through a 256-row shuffle table on the first 8 bytes' bits, up to four
// values of one to three bytes through a 4096-row table on 12 bytes' bits,
// and a longer value is joined from one 8-byte load. It runs while 16 values and 16
// bytes are left and stops before a malformed value, so the Go loop
// decodes the block's last values and reports every error as before.
// varint-G8IU has one too (SSSE3): a group's 8 data bytes in one load, two
// PSHUFB with the descriptor's 32-byte mask fill 8 slots; descriptors the
// Go loop rejects stop the kernel before them. varint-G8CU's kernel loads
// 16 bytes from 4 before each descriptor, so that a value begun in the
// previous unit is gathered across the descriptor byte by the same
// shuffle, its masks picked by the descriptor and the 0 to 3 bytes carried
// over; it takes over from the Go loop after the first unit and hands back
// the decoding state, carry included, for the last units and any error.
package varint
