// Package ef holds the Elias-Fano codecs: elias-fano, one Elias-Fano
// sequence per block, and partitioned-elias-fano, the block split into
// partitions chosen to minimise space (Ottaviano and Venturini,
// "Partitioned Elias-Fano indexes", SIGIR 2014). Each registers itself in
// init with a block size of 128.
//
// Both take the block's values as d-gaps (or freq-1 values), turn them into
// prefix sums s_i = v_0 + ... + v_i, and encode that non-decreasing
// sequence; the decoders return the d-gaps again. Sums are 64-bit: 128
// values of up to 2^32-1 overflow 32 bits.
//
// # Elias-Fano sequence
//
// m non-decreasing values s_0..s_{m-1} in [0, u] (u = s_{m-1}) with low
// width l are written as m*l low bits (the l low bits of each s_i, in order)
// followed by the upper bits: for each i, h_i - h_{i-1} zero bits and a one
// bit, where h_i = s_i >> l and h_{-1} = 0. That is m*l + m + (u>>l) bits.
// The encoder picks the smallest l with u>>l <= 2m, which minimises that
// size exactly (the textbook floor(log2(u/m)) is within one of it); since
// u <= m*(2^32-1), l <= 31. With l = 0 the upper bits are the unary codes
// of the gaps, i.e. the characteristic bitvector of the strictly
// increasing sequence s_i + i.
//
// All streams are little-endian and LSB-first (internal/bitio, shared with
// rice), padded with zero bits to a whole byte. An empty block (n = 0) is no bytes. The last byte of a block
// holds at least one bit of the stream and the decoders reject a stream
// that would need bits past the end of src (reading them as zeros without
// touching memory), so dropping any byte is detected; bytes after the block
// are never read.
//
// # elias-fano
//
// One header byte holding l (0..31; anything else is corrupt), then the
// Elias-Fano sequence of the whole block's prefix sums.
//
// # partitioned-elias-fano
//
// A bit stream of partitions covering the block in order, with no header.
// Each partition encodes its values' prefix sums relative to the end of the
// previous partition, so it decodes on its own:
//
//	7 bits   m-1, the partition's length (1..128)
//	1 bit    kind: 0 Elias-Fano, 1 run
//	EF:      5 bits l, then the Elias-Fano sequence of the m local sums
//	run:     6 bits w (0..32), then w bits c: all m values equal c
//
// The paper's three partition encodings map onto these two kinds. Its dense
// bitvector (for partitions whose universe is small) is the Elias-Fano kind
// with l = 0: the unary gap code above is that bitvector once the
// non-decreasing sums are made strict as s_i + i, which our d-gaps need
// because freq-1 values and the first gap of a list may be zero. Its
// all-ones partition, free because it is implied by the universe, becomes
// the run kind, which also covers runs of any repeated gap (the 0s of
// freq-1 values, the 1s of consecutive docids) for 14 to 46 bits whatever
// the run's length.
//
// # Decisions
//
// The partition is the exact optimum for this format: a dynamic program
// over every split point of the block, O(n^2) = 8256 candidate partitions
// of 128 values, each priced in O(1) from the prefix sums (EF size from the
// formula above, run size when all its values are equal). The paper's
// (1+eps)-approximate DP exists for lists of millions of values; with
// 128-value blocks the exact one is affordable (tens of microseconds per
// block) and needs no tuning parameters.
//
// Decoders read 64 bits at a time and find the upper bits' ones with
// bits.TrailingZeros64. A decoded gap must fit in 32 bits; a negative or
// larger one (only garbage can produce it) is corrupt.
package ef
