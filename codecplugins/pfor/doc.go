// Package pfor holds the patched frame-of-reference codecs newpfor (NewPFD),
// optpfor (OptPFD) and fastpfor (after FastPFor). A block's values are stored in b-bit slots, b chosen
// so that most values fit; the few that do not (exceptions) keep their low b
// bits in their slot, and their high bits and positions go to a small
// compressed exception area after the slots. The two codecs share the block
// format and the decoder and differ only in how the encoder picks b:
// newpfor takes the smallest b for which at most 10% of the values are
// exceptions, optpfor the b that minimises the encoded size of the block.
// Both register in init.
//
// Block format, n values (n <= 128):
//
//	n == 0:    nothing
//	byte 0:    b, 0..32, with bit 7 (0x80) set when the block has exceptions
//	byte 1:    e, the number of exceptions, 1..n; only when bit 7 is set
//	slots:     the low b bits of every value: 16*b bytes in the 4-way
//	           vertical layout of package bitpack when n == 128, else
//	           ceil(n*b/8) bytes in its horizontal layout
//	exceptions (only when e > 0): 2e integers coded with simple16 (below):
//	           first the e positions as gaps (p0, then p_i - p_(i-1) - 1),
//	           then for each exception its high part minus one,
//	           (v >> b) - 1, which is never negative since v >= 2^b
//
// Simple16 here is our own small copy of the word-aligned code of Zhang,
// Long and Suel: each little-endian 32-bit word has a 4-bit selector in its
// top bits choosing one of 16 ways to split the low 28 bits into fields
// (table s16Layouts), values stored from the low bits up. The last word may
// be partly used: a decoder takes only as many fields as values remain.
//
// Decisions. The slots use the bitpack kernels of bp128, so a full block
// decodes with the same unrolled vertical kernel and is then patched. Both
// codecs are codecplugins.PrefixDecoders: a full block without exceptions
// is a bp128 block (width byte, vertical slots) and decodes into docids in
// bp128's one assembly call; one with exceptions is unpacked, patched and
// summed by bitpack.PrefixSum. The exception coder's encoder lives in this
// package; its decoder takes every word, the block's last, partly used
// one included, through package simple's unrolled Simple-16 decoder
// (simple.DecodeWords16), about a third faster on clustered gaps than a
// loop over a layout table. Simple16 cannot hold a value of more than 28
// bits, so the encoder never picks a b below maxbits-28; with that rule
// every block is encodable. A decoder checks the header and lengths
// before it writes to dst, and each exception (positions strictly
// increasing and below n, patched values within 32 bits) as it patches
// it in, in the same pass: a corrupt block is an error wrapping
// ErrCorrupt and leaves dst undefined, as a cursor discards it. Encoding
// with either codec decodes with either, since the format is the same.
//
// fastpfor keeps the slots, and chooses b as optpfor does but for a byte
// charged to each exception beyond its size (its patching time), but not
// the word-coded exception area: positions are bytes and the high
// parts minus one are bit-packed at one width hb, FastPFor's exception
// layout (Lemire and Boytsov), kept per block for random access. Its
// format, n values (n <= 128):
//
//	n == 0:    nothing
//	byte 0:    b, 0..32, with bit 7 (0x80) set when the block has exceptions
//	bytes 1-2: e, the number of exceptions, 1..n, and hb, with b+hb <= 31;
//	           only when bit 7 is set
//	positions: e bytes, strictly increasing, below n
//	high parts: (v >> b) - 1 for each exception, hb bits each, in bitpack's
//	           horizontal layout: ceil(e*hb/8) bytes
//	slots:     as above: vertical when n == 128, else horizontal
//
// b+hb <= 31 keeps every patched value, (high part) << b plus the slot,
// within 32 bits, so a decoder checks the header and not each exception;
// the encoder never picks a b that would break it (the largest value's
// width, without exceptions, is always there). A block without exceptions
// is a bp128 block. A full block decodes in bp128's kernels: its high
// parts are scattered into a patch that the kernel adds, shifted by b,
// before it sums (bitpack.UnpackVerticalPatchedPrefix), or added to the
// unpacked values; the scatter and the add are assembly (patch_amd64.s,
// from internal/gensimd), each exception a 64-bit load, shifts and a
// store, which the slots after the high parts keep inside the block. On
// the RFC passages its postings are 2.5% smaller than newpfor's and its
// AND and OR queries faster (docs/codecs.md).
package pfor
