// Package index is gpusearch's on-disk inverted index: the writer that lays
// it out, and the reader whose cursors the query engines use.
//
// An index is a directory: a commit point, meta.json, names a generation
// directory (gen-N) that holds the data files:
//
//	docids.bin     encoded docid blocks, every term's blocks in term order
//	freqs.bin      encoded frequency blocks (freq-1), same order
//	lexicon.bin    one record per term in byte order, in segments of
//	               16,384 terms, each its own deflate stream, then the
//	               segment table that locates them and the values the
//	               score bounds were computed with (segments.go). A record:
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
//
// Those five every index has. Optional data files (optionalFiles), which
// only some indexes have, lie beside them, written and checksummed the
// same way (Writer.createOptional); meta.json names exactly those an index
// has, and Open maps and checks them (format version 4; a version 3 index
// reads as one without optional files):
//
//	titles.bin     the document store's titles, a block file (store.go):
//	               zstd frames of consecutive documents' records, then a
//	               table of each frame's offset, first docid and decoded
//	               size
//	textwords.bin  the document store's extracted texts, word-coded
//	               (textwords.go): the analyzer's tokens as ranks in a
//	               lexicon of symbols (a token and the gap after it), so
//	               that a snippet decodes the few dozen tokens around its
//	               window (texts.bin, format 4's zstd blocks, is still
//	               read; textpieces.bin, the 1 KiB zstd pieces of builds
//	               before, is refused with ErrVersion)
//	positions.bin  every posting's token positions, one block per block of
//	               postings (positions.go): per posting the first position
//	               and each gap less one, in chunks of the positions
//	               codec's block size (the lengths together, then the
//	               codec bytes); then each block's size (uvarints), the
//	               codec's name, the block count, the table's offset and
//	               "gsposit2"
//
// meta.json is {"version", "crc32c", "index"}: the format version, the
// CRC-32C of the index value's bytes as they lie, and the index value
// (Meta): the generation, codecs, block size, counts, BM25 parameters,
// average length, docid order, and size + CRC-32C of every data file.
//
// The postings are mapped as they lie (OpenWith with HugePages reads them
// into memory on huge pages instead, and moves the tables below there
// too: memory.go); Open inflates the streams (the
// lexicon's segments in parallel) into in-memory tables: the lexicon (32
// bytes a term), the skip table (24 bytes a block: last docid, block max,
// and the docid and frequency byte offsets side by side, which a cursor
// entering a block reads together) and the document table. The varints
// and deflate make the tables that v1 stored as fixed-size records 6 to 15
// times smaller on disk, which matters most for the many rare terms of a
// real crawl; the price is Open's time and heap, which grow with terms and
// blocks (1.6 s on 16 cores and 1 GB for 9.8 M terms and 19 M blocks,
// docs/peers.md).
//
// Blocks hold BlockSize postings (the last block of a list fewer). Docids are
// d-gaps relative to the previous block's last docid (0 before the first
// block); frequencies are stored as freq-1. Index.Skips copies the offsets
// into two columns on its first call (16 bytes a block more): the
// "endpoint" arrays the GPU formats need.
//
// An index may also be several segments (version 7, segmented.go and
// docs/index-format.md): meta.json then names several generation
// directories, each holding the files above, and a deletions file
// (deletions.go) per segment with deleted documents; Open numbers the live
// documents as a fresh build of them would and gives each segment the
// collection's statistics (Segments). CommitSegments writes such a commit.
//
// An index may be a shard of a sharded collection (shard.go,
// collection.go, split.go): one docid range of it, with meta.json's shard
// section (ShardInfo) and the collection's statistics in collection.bin,
// which it scores under as a segment scores under its index's. Split
// writes a collection's shards and its manifest, shards.json (manifest.go);
// OpenSharded opens them.
//
// A writer (Dir, Writer) holds the directory's lock, writes a new
// generation beside the committed one, fsyncs it, renames a new meta.json
// over the old and fsyncs the directory, and only then removes the old
// generation (commit.go): a crash leaves the old index or the new one,
// and a reader's files are never written in place. Open checks the
// version, meta.json's checksum and keys, every data file's size and
// checksum, every record and cross-file count, and every value scoring
// depends on against the data (the document count, tokens and average
// length against the lengths; k1, b, the count and the average length
// against those the score bounds were computed with). It refuses a damaged
// index with an error naming the file (and meta.json's field) and wrapping
// ErrCorrupt (or ErrVersion).
package index
