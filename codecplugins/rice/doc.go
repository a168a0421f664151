// Package rice holds the bit-aligned Golomb-Rice codecs: rice, whose
// parameter k is derived from the block's mean, and optrice, which tries
// every k and keeps the one giving the smallest block. Both write the same
// format and share one decoder; each registers itself in init with a block
// size of 128.
//
// # Format
//
// An empty block (n = 0) is encoded as no bytes at all. Otherwise a block is
// one header byte holding k (0..31; any other value is corrupt) followed by a
// little-endian, LSB-first bit stream with one codeword per value x:
//
//	q = x >> k, q < 32:   q zero bits, a one bit, then the k low bits of x
//	q >= 32 (escape):    32 zero bits, a one bit, then x in 32 bits
//
// The stream (internal/bitio, shared with elias-fano) is padded with zero
// bits to a whole byte; nothing follows it, so removing any byte of a block
// makes it undecodable, and bytes after the block are never read.
//
// # Decisions
//
// The escape bounds the unary run. Without it an all-max block at k = 0, or
// a single outlier among small gaps, would need up to 2^32 bits per value.
// With it every codeword is at most 65 bits, and a whole quotient fits in one
// 64-bit read: the decoder counts zeros with bits.TrailingZeros64 on a
// window of at least 57 valid bits, so a run of more than 32 zeros is corrupt
// without reading further. An escape is only valid for q >= 32; the decoder
// rejects an escaped value that a normal codeword could carry, so every
// block has exactly one encoding for a given k. The escape costs at most 33
// bits more than an unbounded unary code and only for quotients of 32 or
// more, which a k chosen from the mean makes rare.
//
// rice chooses k = floor(log2(b)) with b = floor(0.69 * mean), the
// power-of-two rounding of Golomb's parameter for geometrically distributed
// gaps (k = 0 when b = 0). The mean is taken in 64-bit arithmetic, since 128
// values of up to 2^32-1 overflow 32 bits. optrice computes the exact size
// of the block for every k in 0..31 and keeps the smallest, the lowest k on
// ties.
//
// The interleaved stream (each quotient next to its remainder) is the CPU
// layout; the GPU variant that keeps unary and binary parts apart
// (gpu-rice) is a different codec.
package rice
