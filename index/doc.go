// Package index is gpusearch's on-disk inverted index: the writer that lays
// it out, and the memory-mapped reader whose cursors the query engines use.
//
// An index is a directory of files:
//
//	docids.bin     encoded docid blocks, every term's blocks in term order
//	freqs.bin      encoded frequency blocks (freq-1), same order
//	lexicon.bin    one record per term in byte order, in segments of
//	               16,384 terms, each its own deflate stream, then the
//	               segment table that locates them (segments.go). A record:
//	                 the length of the prefix shared with the previous term
//	                 of the segment, the suffix length, the suffix bytes,
//	                 df, cf-df (uvarints), the list's largest BM25 term
//	                 score (float32, little-endian; left out when df is 1,
//	                 Open computes it), then one skip row per block: the
//	                 last docid less the previous block's (0 before the
//	                 first), the encoded sizes of the docid and frequency
//	                 blocks (uvarints), and the block's largest score
//	                 (float32) when the list has more than one block
//	doclens.bin    deflate stream of document lengths, one uvarint each
//	urls.bin       deflate stream of URLs in docid order, front-coded as
//	               the terms are
//	meta.json      format version, codecs, block size, counts, BM25 parameters,
//	               docid order, and size + CRC-32C of every other file
//
// The postings are mapped as they lie; Open inflates the streams (the
// lexicon's segments in parallel) into in-memory tables: the lexicon (32
// bytes a term), the skip table (24 bytes a block: last docid, block max,
// docid and frequency byte offsets) and the document table. The varints
// and deflate make the tables that v1 stored as fixed-size records 6 to 15
// times smaller on disk, which matters most for the many rare terms of a
// real crawl; the price is Open's time and heap, which grow with terms and
// blocks (1.6 s on 16 cores and 1 GB for 9.8 M terms and 19 M blocks,
// docs/peers.md).
//
// Blocks hold BlockSize postings (the last block of a list fewer). Docids are
// d-gaps relative to the previous block's last docid (0 before the first
// block); frequencies are stored as freq-1. The skip table's offset columns
// are also the "endpoint" arrays the GPU formats need.
//
// Every file is written to a temporary name, fsynced and renamed, and
// meta.json is written last, so a crash leaves either the old index or no
// index. Open checks the version, every file's size and checksum, and every
// record and cross-file count, and refuses a damaged index with an error
// naming the file and wrapping ErrCorrupt (or ErrVersion).
package index
