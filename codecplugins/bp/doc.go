// Package bp holds the binary-packing codecs bp128 and bp32: every value of a
// (sub-)block is stored in the same number of bits b, the width of the
// largest. They are the fastest codecs to decode, at the price of spending
// the width of the largest gap on every gap. Both register in init.
//
// bp128 (SIMD-BP128) block format, n values:
//
//	n == 0:    nothing
//	byte 0:    b, 0..32
//	n == 128:  16*b bytes, the 4-way vertical layout of package bitpack
//	           (value i in lane i%4, lanes interleaved word by word)
//	n < 128:   ceil(n*b/8) bytes, the horizontal layout of package bitpack
//
// bp32 block format, n values in g = ceil(n/32) sub-blocks of 32 (the last
// one possibly shorter):
//
//	n == 0:    nothing
//	g bytes:   the width b_k of each sub-block, 0..32
//	then per sub-block: 4*b_k bytes for 32 values, or ceil(r*b_k/8) bytes for
//	           the last sub-block's r < 32 values, horizontal layout
//
// Decisions. A short block (the tail of a list; most lists are short) is not
// padded to a full block: it is packed horizontally in exactly the bytes its
// values need, since the vertical layout only pays off for whole 128-value
// blocks. A full bp128 block is the only one that uses the vertical layout,
// so its decoder is a single unrolled kernel call after one length check;
// with SIMD, the check, the width's dispatch and the kernel are one
// assembly call.
// bp32 spends one header byte per sub-block, not six bits, so that widths are
// read without bit manipulation. Widths above 32 and blocks shorter than their
// header announces are rejected as corrupt; the unused high bits of a short
// block's last byte are ignored.
//
// The 4-way vertical layout is the one SSE decodes natively, so the
// assembly decoders of package bitpack needed no new format: existing
// indexes decode with them unchanged. bp128 is also a
// codecplugins.PrefixDecoder: a full block whose sums cannot pass 2^32-1
// is decoded and turned into docids in one vectorised pass.
package bp
