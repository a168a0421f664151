package index

import (
	"compress/flate"
	"encoding/binary"
	"fmt"
	"math"
)

// The sources file, sources.bin, records what the indexer read of each
// crawl file that became documents, so that `gpusearch index --update`
// can tell which files of the crawl changed since: the file's URL, size
// and modification time, a 64-bit hash of the bytes read, and how many
// consecutive documents it became (1, or its passages in passage mode).
// It also records the build options that decide what a file becomes and
// that meta.json does not (the passage size, the largest document read,
// the oversize policy), so that an update parses new files as the build
// did. It is a deflate stream (stream.go) of uvarints:
//
//	header   passage size, largest document read, oversize policy (0
//	         truncate, 1 skip), number of sources
//	source   URL (front-coded after the previous source's), size, the
//	         modification time in ns since 1970 (zigzag), the hash (8
//	         bytes, little-endian), documents (at least 1)
//
// Sources lie in docid order: source i's documents follow source i-1's,
// and their counts add up to the index's documents.

// fileSources is the sources' file name, one of optionalFiles.
const fileSources = "sources.bin"

// Source is what the indexer read of one crawl file: the identity an
// update compares the crawl against, and the documents the file became.
type Source struct {
	URL   string // the file's URL as the walk names it (in passage mode, without #p<i>)
	Size  int64  // its size when it was walked
	MTime int64  // its modification time when it was walked, ns since 1970
	Hash  uint64 // a hash of the bytes read (the indexer's: CRC-64 ECMA)
	Docs  uint32 // the consecutive documents it became, at least 1
}

// SourceOptions are the build options, beside those meta.json records,
// that decide which documents a crawl file becomes.
type SourceOptions struct {
	Passages    int    // passage size in terms (0: whole documents)
	MaxDocBytes int64  // the largest document read, in bytes
	Oversize    string // "truncate" or "skip"
}

// oversizePolicies numbers SourceOptions.Oversize on disk.
var oversizePolicies = []string{"truncate", "skip"}

// AddSources writes sources.bin into the new generation: srcs in docid
// order, their Docs adding up to the writer's documents.
func (w *Writer) AddSources(opts SourceOptions, srcs []Source) error {
	policy := -1
	for i, p := range oversizePolicies {
		if p == opts.Oversize {
			policy = i
		}
	}
	if policy < 0 || opts.Passages < 0 || opts.MaxDocBytes < 0 {
		return fmt.Errorf("index: sources: options %+v out of range", opts)
	}
	var docs uint64
	for _, s := range srcs {
		if s.Docs == 0 || len(s.URL) > maxStringBytes || s.Size < 0 {
			return fmt.Errorf("index: sources: %q: %d documents, %d-byte URL, size %d", s.URL, s.Docs, len(s.URL), s.Size)
		}
		docs += uint64(s.Docs)
	}
	if docs != uint64(len(w.docLens)) {
		return fmt.Errorf("index: sources: %d documents, the index %d", docs, len(w.docLens))
	}
	if _, err := w.createOptional(fileSources); err != nil {
		return err
	}
	f := w.optional[len(w.optional)-1]
	s, err := newStreamOn(f)
	if err != nil {
		return err
	}
	s.uvarint(uint64(opts.Passages))
	s.uvarint(uint64(opts.MaxDocBytes))
	s.uvarint(uint64(policy))
	s.uvarint(uint64(len(srcs)))
	s.flush()
	prev := ""
	for _, src := range srcs {
		s.frontCoded(prev, src.URL)
		s.uvarint(uint64(src.Size))
		s.uvarint(zigzag(src.MTime))
		s.uint64(src.Hash)
		s.uvarint(uint64(src.Docs))
		s.flush()
		prev = src.URL
	}
	s.end() // errors surface when Close finishes the file
	return nil
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// sourceTable is a parsed sources.bin.
type sourceTable struct {
	opts SourceOptions
	srcs []Source
}

// parseSources reads and checks sources.bin for an index of docs
// documents: known options, every source of at least one document, their
// documents adding up to docs, and nothing after the last.
func parseSources(data []byte, docs uint64) (*sourceTable, error) {
	s := newStreamReader(fileSources, data)
	passages, maxBytes, policy, n := s.uvarint(), s.uvarint(), s.uvarint(), s.uvarint()
	if s.err != nil {
		return nil, s.err
	}
	if passages > math.MaxInt32 || maxBytes > math.MaxInt64 || policy >= uint64(len(oversizePolicies)) || n > docs {
		return nil, corruptf(fileSources, "header: passages %d, max bytes %d, oversize %d, %d sources for %d documents", passages, maxBytes, policy, n, docs)
	}
	t := &sourceTable{opts: SourceOptions{Passages: int(passages), MaxDocBytes: int64(maxBytes), Oversize: oversizePolicies[policy]},
		srcs: make([]Source, 0, initialCap(n))}
	var buf, prev []byte
	var total uint64
	for i := uint64(0); i < n && s.err == nil; i++ {
		var url []byte
		buf, url = s.frontCoded(buf[:0], prev)
		size, mtime, hash, nd := s.uvarint(), s.uvarint(), s.uint64(), s.uvarint()
		if s.err != nil {
			break
		}
		if size > math.MaxInt64 || nd == 0 || nd > docs-total {
			s.failf("source %d (%q): size %d, %d documents (%d of %d so far)", i, url, size, nd, total, docs)
			break
		}
		total += nd
		t.srcs = append(t.srcs, Source{URL: string(url), Size: int64(size), MTime: unzigzag(mtime), Hash: hash, Docs: uint32(nd)})
		prev = append(prev[:0], url...)
	}
	if err := s.end(); err != nil {
		return nil, err
	}
	if total != docs {
		return nil, corruptf(fileSources, "sources of %d documents, meta.json says %d", total, docs)
	}
	return t, nil
}

// readSources parses sources.bin, if the index has one, under Guard.
func (ix *Index) readSources() error {
	data, ok := ix.maps[fileSources]
	if !ok {
		return nil
	}
	return ix.Guard(func() (err error) {
		ix.sources, err = parseSources(data, ix.meta.Docs)
		return err
	})
}

// Sources returns what the indexer read of each crawl file, in docid
// order, and the build options that decide what a file becomes; ok is
// false for an index without sources.bin (written before format 6, or
// not by the indexer). The slice is the index's: read-only.
func (ix *Index) Sources() (opts SourceOptions, srcs []Source, ok bool) {
	if ix.sources == nil {
		return SourceOptions{}, nil, false
	}
	return ix.sources.opts, ix.sources.srcs, true
}

// newStreamOn starts a deflate stream on a data file already created.
func newStreamOn(fw *fileWriter) (*streamWriter, error) {
	z, err := flate.NewWriter(fw, flate.DefaultCompression)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	return &streamWriter{fw: fw, z: z}, nil
}

// uint64 appends v as 8 bytes, little-endian.
func (s *streamWriter) uint64(v uint64) { s.buf = binary.LittleEndian.AppendUint64(s.buf, v) }

// uint64 reads 8 bytes, little-endian.
func (s *streamReader) uint64() uint64 {
	var b [8]byte
	s.read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}
