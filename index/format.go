package index

import (
	"errors"
	"fmt"
	"slices"
)

// FormatVersion and SegmentedVersion are the on-disk format versions this
// package writes; it reads minReadVersion to SegmentedVersion.
//
// Changelog:
//
//	1: first format: fixed-size lexicon records and skip-table columns,
//	   mapped as they lie.
//	2: the lexicon (terms front-coded, with each list's skip rows, in
//	   segments that inflate in parallel), the document lengths and the
//	   URLs are deflated streams of varints, inflated at Open: the same
//	   tables in memory, 6-15x smaller on disk.
//	3: a root of trust and commits that keep the old index: the data files
//	   live in a generation directory, and meta.json, the commit point,
//	   names it, carries a checksum of its own content and is cross-checked
//	   against the data files; the lexicon records the BM25 parameters,
//	   document count and average length its score bounds were computed
//	   with.
//	4: optional data files: meta.json's files may name, beside the five
//	   that every index has, files that only some indexes have (the
//	   document store, positions). A version 3 reader would call such an
//	   index corrupt; a version 3 index reads as a version 4 one without
//	   optional files.
//	5: the stored text in 1 KiB zstd pieces (textpieces.bin), so that a
//	   snippet reads the kilobyte around its terms, not the whole text.
//	   Version 5 writes no texts.bin (whole texts in 32 KiB zstd blocks)
//	   but still reads it; a version 4 reader refuses textpieces.bin.
//	6: what the indexer read of each crawl file (sources.bin, sources.go:
//	   URL, size, modification time, content hash), so that
//	   `gpusearch index --update` finds the files that changed; an index
//	   without it is updated only after a rebuild. A version 5 reader
//	   refuses sources.bin.
//	   A shard (shard.go) is a version 6 index with a shard section in
//	   meta.json and the collection's statistics in collection.bin; a
//	   reader without shards refuses both.
//	7: segments (segmented.go): a commit point may name several
//	   immutable segments, each a generation directory of version 6, and
//	   a roaring bitmap of each one's deleted documents in a file of its
//	   own. An index of one segment without deletions is still written as
//	   version 6.
//
// The stored text later became word-coded (textwords.bin, textwords.go)
// within versions 6 and 7: a reader before it refuses textwords.bin as a
// file it does not know, and this one refuses textpieces.bin with
// ErrVersion (rebuild the index: its pieces cannot be turned into tokens
// without the analyzer). At the same time positions.bin put each block's
// chunk lengths together (magic "gsposit2"): this reader refuses the old
// layout ("gsposits") with ErrVersion, and a reader before it calls the
// new one corrupt.
//
// FormatVersion is what a commit point naming one segment without
// deletions is written as, so that such an index reads as it did before
// segments; SegmentedVersion is the newest version, read and written.
const FormatVersion = 6

// SegmentedVersion is the version of a commit point naming several
// segments or deletions.
const SegmentedVersion = 7

// minReadVersion is the oldest format version this package reads.
const minReadVersion = 3

// File names inside an index directory.
const (
	fileDocIDs  = "docids.bin"
	fileFreqs   = "freqs.bin"
	fileLexicon = "lexicon.bin"
	fileDocLens = "doclens.bin"
	fileURLs    = "urls.bin"
	fileMeta    = "meta.json"
)

// lockName is the file an index directory's writer holds a lock on.
const lockName = ".lock"

// dataFiles lists the files that every index has and meta.json
// checksums, in writing order.
var dataFiles = []string{fileDocIDs, fileFreqs, fileLexicon, fileDocLens, fileURLs}

// optionalFiles lists the data files that an index may have beside
// dataFiles: meta.json checksums those it has, Open maps and checks them,
// and a name not in either list is refused.
var optionalFiles = []string{fileTitles, fileTexts, fileTextPieces, fileTextWords, filePositions, fileSources, fileCollection}

// sinceVersion is the format version that introduced data file name.
func sinceVersion(name string) int {
	switch {
	case slices.Contains(dataFiles, name):
		return minReadVersion
	case name == fileTextPieces:
		return 5
	case name == fileSources, name == fileCollection, name == fileTextWords:
		return 6
	}
	return 4
}

// knownFile reports whether name is a data file of an index.
func knownFile(name string) bool {
	return slices.Contains(dataFiles, name) || slices.Contains(optionalFiles, name)
}

// ErrCorrupt is wrapped by every error about a damaged index.
var ErrCorrupt = errors.New("index corrupt")

// ErrVersion is wrapped when an index has a format version this build does
// not read.
var ErrVersion = errors.New("unsupported index format version")

// NoMoreDocs is the sticky docid a cursor reports past its last posting.
const NoMoreDocs = ^uint32(0)

// Meta is the content of meta.json: the format version, and the index the
// commit names, with its generation directory and every value scoring
// depends on.
type Meta struct {
	Version      int     `json:"-"` // the envelope's (commit.go)
	Generation   string  `json:"generation"`
	DocIDCodec   string  `json:"docid_codec"`
	FreqCodec    string  `json:"freq_codec"`
	BlockSize    int     `json:"block_size"`
	Docs         uint64  `json:"docs"`
	Terms        uint64  `json:"terms"`
	Postings     uint64  `json:"postings"`
	Blocks       uint64  `json:"blocks"`
	Tokens       uint64  `json:"tokens"`
	AvgDocLength float64 `json:"avg_doc_length"`
	Order        string  `json:"order"`
	K1           float32 `json:"k1"`
	B            float32 `json:"b"`
	// TitleWeight is the weight w the indexer gave each document's title
	// (index.title_weight): every frequency is the body's plus w times
	// the title's, every length the body's plus w times the title's. 0,
	// left out of meta.json, is plain BM25 over the body.
	TitleWeight uint32              `json:"title_weight,omitempty"`
	Files       map[string]FileMeta `json:"files"`
	// Segments, in a version 7 commit point, are the index's segments;
	// the fields above then summarise them (Generation names the commit,
	// Docs, Tokens and AvgDocLength count the live documents, Terms,
	// Postings and Blocks add up the segments', Files is empty). Empty for an index of one segment without deletions.
	Segments []SegmentMeta `json:"segments,omitempty"`
	// Shard, in a shard of a sharded collection (shard.go), is its part
	// of the collection, whose statistics collection.bin holds; nil
	// elsewhere.
	Shard *ShardInfo `json:"shard,omitempty"`
}

// SegmentMeta is one segment of a version 7 commit point: the segment's
// own meta.json value (naming its generation directory) and its
// deletions, nil when none.
type SegmentMeta struct {
	Meta      Meta           `json:"meta"`
	Deletions *DeletionsMeta `json:"deletions"`
}

// FileMeta records one file's size and CRC-32C (Castagnoli) checksum.
type FileMeta struct {
	Size  int64  `json:"size"`
	CRC32 uint32 `json:"crc32c"`
}

// TermInfo describes one term of the lexicon.
type TermInfo struct {
	ID         int     // rank of the term in the sorted lexicon
	Term       string  // the analyzed term
	DF         uint32  // document frequency: postings in the list
	CF         uint64  // collection frequency: sum of term frequencies
	MaxScore   float32 // largest BM25 term score in the list
	FirstBlock uint32  // index of the list's first block in the skip table
	// In a segment of a segmented index: the term's idf over the whole
	// collection and the factor that scales the segment's bounds
	// (segmented.go), computed once by Lookup and Term; 0 elsewhere.
	idf   float32
	scale float64
}

// NumBlocks is the number of blocks the term's list occupies.
func (t TermInfo) NumBlocks(blockSize int) int {
	return (int(t.DF) + blockSize - 1) / blockSize
}

func corruptf(file, format string, args ...any) error {
	return fmt.Errorf("index: %s: %w: %s", file, ErrCorrupt, fmt.Sprintf(format, args...))
}

// fileBytes is the size of data file name, over every segment of a
// segmented index.
func (m Meta) fileBytes(name string) int64 {
	n := m.Files[name].Size
	for _, s := range m.Segments {
		n += s.Meta.Files[name].Size
	}
	return n
}

// BitsPerDocID is the docid file's size in bits per posting.
func (m Meta) BitsPerDocID() float64 { return m.bitsPerPosting(fileDocIDs) }

// BitsPerFreq is the frequency file's size in bits per posting.
func (m Meta) BitsPerFreq() float64 { return m.bitsPerPosting(fileFreqs) }

func (m Meta) bitsPerPosting(file string) float64 {
	if m.Postings == 0 {
		return 0
	}
	return float64(8*m.fileBytes(file)) / float64(m.Postings)
}
