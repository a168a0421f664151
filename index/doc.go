// Package index is gpusearch's on-disk inverted index: the writer that lays
// it out, and the memory-mapped reader whose cursors the query engines use.
//
// An index is a directory of little-endian files:
//
//	docids.bin     encoded docid blocks, every term's blocks in term order
//	freqs.bin      encoded frequency blocks (freq-1), same order
//	skips.bin      the skip table, one entry per block, column by column:
//	                 last docid   uint32 x B
//	                 block max    float32 x B  (largest BM25 term score in the block)
//	                 docid offset uint64 x (B+1)  (block i is docids.bin[off[i]:off[i+1]])
//	                 freq offset  uint64 x (B+1)
//	lexicon.bin    one 32-byte record per term, sorted by term:
//	                 term offset uint64, collection frequency uint64,
//	                 term length uint32, df uint32, max score float32, first block uint32
//	terms.bin      the term strings, concatenated
//	doclens.bin    document lengths, uint32 x N
//	urls.bin       document URLs, concatenated
//	urloffs.bin    uint64 x (N+1) offsets into urls.bin
//	meta.json      format version, codecs, block size, counts, BM25 parameters,
//	               docid order, and size + CRC-32C of every other file
//
// Blocks hold BlockSize postings (the last block of a list fewer). Docids are
// d-gaps relative to the previous block's last docid (0 before the first
// block); frequencies are stored as freq-1. The skip table's offset columns
// are also the "endpoint" arrays the GPU formats need.
//
// Every file is written to a temporary name, fsynced and renamed, and
// meta.json is written last, so a crash leaves either the old index or no
// index. Open checks the version, every file's size and checksum, and the
// cross-file counts, and refuses a damaged index with an error naming the
// file and wrapping ErrCorrupt (or ErrVersion).
package index
