// Package gpuformat holds the GPU block formats: gpu-bp128, gpu-bp256,
// gpu-vbyte128, gpu-vbyte1024, gpu-pfordelta and gpu-rice, each with a CPU
// encoder and the CPU reference decoder that the GPU kernels in gpu/kernels
// are tested against. The formats follow Mallia et al., "GPU-Accelerated
// Decoding of Integer Lists" (GPU-BP, GPU-VByte) and Ding, He, Yan and
// Suel, "Using Graphics Processors for High Performance IR Query
// Processing", section 6 (PForDelta with one b per list and recursively
// compressed exceptions, Rice by two prefix sums).
//
// As with every codec, the index cuts a list into blocks of BlockSize values
// (the last block shorter), stores docids as d-gaps from the previous
// block's last docid and frequencies as freq-1, and records each block's
// byte offset in the skip table. Those offset columns are the papers'
// "endpoints" arrays: a GPU thread block finds its block at
// data[off[i]:off[i+1]] and needs nothing else from the list. A block's value
// count is never stored in it (the index knows it from the document
// frequency), and every block also decodes on its own, given that count,
// through Codec.DecodeBlock.
//
// All multi-byte fields are little-endian. "Packed in b bits" means the
// horizontal layout of codecplugins/bp/bitpack: value j occupies bits
// j*b .. j*b+b-1 of a stream of 32-bit little-endian words, low bits first,
// a value that crosses a word boundary continuing in the low bits of the
// next word; the stream is zero-padded to a whole word, so n values take
// ceil(n*b/32) words. Thread j of a warp finds its value at bit j*b without
// looking at any other value, and the warp's loads fall on consecutive
// words.
//
// # gpu-bp128, gpu-bp256
//
// A block of n <= B values (B = 128 or 256) is cut into m = ceil(n/32)
// miniblocks of 32 values, the last one possibly shorter:
//
//	bytes 0 .. B/32-1   width header: byte k is the bit width w_k (0..32) of
//	                    miniblock k, the bit length of its largest value;
//	                    bytes k >= m are zero
//	then, for k = 0 .. m-1, miniblock k's values packed in w_k bits:
//	                    ceil(c_k*w_k/32) words, c_k = min(32, n-32k)
//
// A block is 4 or 8 header bytes plus whole words, so every block of a
// docids file starts on a 4-byte boundary. Unlike the paper's GPU-BP, which
// has one width per block derived from the endpoints, each 32-value
// miniblock (a warp's worth) has its own width, as in BP32: this costs 1 byte
// per 32 values and compresses noticeably better, and the width header
// makes a block self-describing for the CPU decoder.
//
// # gpu-vbyte128, gpu-vbyte1024
//
// The paper's GPU-VByte: a block of n <= B values (B = 128 or 1024) is
//
//	bytes 0 .. ceil(n/4)-1  selectors: value i's byte length minus one (0..3)
//	                        in bits 2*(i%4) .. 2*(i%4)+1 of byte i/4; unused
//	                        bits of the last byte are zero and ignored
//	then                    each value in order, in its 1 to 4 bytes,
//	                        least significant first
//
// A short block stores only ceil(n/4) selector bytes, not B/4. The format is
// byte-granular: blocks are not aligned, and the GPU decoder stages each
// block through shared memory from the aligned 16-byte chunks that cover
// it. A warp decodes 128 values at a time: lane l takes selector byte l, so
// four values, and an exclusive prefix sum of the lanes' byte counts gives
// each lane its data offset (Algorithm 2 of the paper).
//
// # gpu-pfordelta
//
// Blocks of n <= 128 values. A block is a small tree of sequences, at most
// PForMaxNodes of them. A sequence of c values with slot width b (0..32)
// stores every value's low b bits in a b-bit slot; the values that do not
// fit in b bits are its e exceptions, at positions p_0 < ... < p_{e-1}. If
// e > 0 the sequence has two children, each a sequence of e values: the
// position gaps g_k = p_k - p_{k-1} - 1 (p_{-1} = -1), and the overflows
// h_k = (v[p_k] >> b) - 1. The root (depth 0) is the block itself, with the
// list's slot width; the children at depth 1 choose the width that makes
// their own subtree smallest; a sequence at depth PForMaxDepth (2) has no
// exceptions, its width being the bit length of its largest value. This is
// one level of recursive PFor compression of the exception arrays, with the
// second-level exceptions stored in full width, as the paper recommends.
// Layout:
//
//	2 bytes per sequence, in preorder (root; first child's subtree;
//	second child's subtree): bits 0-5 the slot width b, bits 6-15 the
//	exception count e; then 2 zero bytes if the count of sequences is odd
//	then each sequence's slots, in the same preorder, packed in its b bits
//
// Decoding reverses it: decode a sequence's slots, decode its children,
// turn the gaps into positions by a prefix sum, and add (h_k+1) << b into
// the slot at p_k. A header with b > 32, e > c, or exceptions in a sequence
// at the last depth or of width 32 is corrupt, as is a position past the
// sequence or an overflow past 32 bits.
//
// One width per list (ListEncoder.ForList, as the paper does, so that a
// GPU prefix sum runs over uniform b-bit slots) is the one that minimizes
// the list's size with the exception arrays bounded by their full-width
// packing (over 64 evenly spaced blocks of a longer list): a cheap bound
// that picked the exact optimum on every distribution tried. The
// registered codec, given a block alone, chooses a width for the block the
// same way.
// The width is carried in every block's root header, so DecodeBlock needs
// no list-level state. The paper uses blocks of 512; 128 keeps a block one
// warp's work and matches the index's skip granularity.
//
// # gpu-rice
//
// Blocks of n <= 128 values, Rice parameter b per block: value v is the
// quotient q = v >> b and the remainder r = v mod 2^b.
//
//	bytes 0-3   header: bits 0-5 b (0..32), bits 6-15 zero, bits 16-31 the
//	            number U of unary words
//	then        the remainders, packed in b bits
//	then        U words of unary codes: for each value, q one bits and then
//	            a zero bit, from bit 0 of word 0 up; the last value's zero
//	            falls in word U-1 and the bits after it are zero
//
// The binary and unary parts are kept apart, so the GPU decodes both by
// prefix sums: lane j's remainder is at bit j*b, and the j-th zero of the
// unary stream, at bit position z_j, gives the sum of the first j+1
// quotients as z_j - j; docid j is then base + (z_j - j) << b + the prefix
// sum of the remainders. The encoder picks the b that makes the block
// smallest among those of at least bits(max)-8, so no quotient exceeds
// RiceMaxQuotient and a block's unary stream is at most 1024 words: the
// bound trades a little space on blocks with outliers for a bounded block.
// A quotient whose q << b overflows 32 bits is corrupt, as is a unary stream
// that ends before its last value or runs on past it.
package gpuformat
