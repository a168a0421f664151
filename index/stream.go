package index

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// The lexicon, the document lengths and the URLs are deflate streams of
// variable-length records (streamWriter writes one, streamReader parses
// it); Open inflates them into in-memory tables.

// maxStringBytes bounds a term or URL, so that a damaged length cannot ask
// for a huge allocation.
const maxStringBytes = 1 << 20

// streamWriter deflates records into an index file.
type streamWriter struct {
	fw  *fileWriter
	z   *flate.Writer
	buf []byte // the record being built
}

func createStream(dir, name string) (*streamWriter, error) {
	fw, err := createFile(dir, name)
	if err != nil {
		return nil, err
	}
	z, err := flate.NewWriter(fw, flate.DefaultCompression)
	if err != nil {
		fw.abort()
		return nil, fmt.Errorf("index: %w", err)
	}
	return &streamWriter{fw: fw, z: z}, nil
}

func (s *streamWriter) uvarint(v uint64) { s.buf = binary.AppendUvarint(s.buf, v) }

func (s *streamWriter) float32(f float32) {
	s.buf = binary.LittleEndian.AppendUint32(s.buf, math.Float32bits(f))
}

// frontCoded appends str as the length of the prefix it shares with prev,
// the length of the rest, and the rest.
func (s *streamWriter) frontCoded(prev, str string) {
	p := 0
	for p < len(prev) && p < len(str) && prev[p] == str[p] {
		p++
	}
	s.uvarint(uint64(p))
	s.uvarint(uint64(len(str) - p))
	s.buf = append(s.buf, str[p:]...)
}

// flush writes the record built so far.
func (s *streamWriter) flush() {
	s.z.Write(s.buf) // errors surface in commit through the file writer
	s.buf = s.buf[:0]
}

func (s *streamWriter) commit(dir string) (FileMeta, error) {
	s.flush()
	if err := s.z.Close(); err != nil {
		s.fw.abort()
		return FileMeta{}, fmt.Errorf("index: write %s: %w", s.fw.name, err)
	}
	return s.fw.commit(dir)
}

func (s *streamWriter) abort() { s.fw.abort() }

// streamReader parses the records of an inflated index file. The first
// error sticks: later reads return zero values, and err reports it.
type streamReader struct {
	name string
	r    *bufio.Reader
	err  error
}

func newStreamReader(name string, data []byte) *streamReader {
	return &streamReader{name: name, r: bufio.NewReaderSize(flate.NewReader(bytes.NewReader(data)), 1<<16)}
}

func (s *streamReader) fail(err error) {
	if s.err != nil {
		return
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	s.err = corruptf(s.name, "%v", err)
}

// failf records a structural error, unless an earlier one stands.
func (s *streamReader) failf(format string, args ...any) {
	if s.err == nil {
		s.err = corruptf(s.name, format, args...)
	}
}

func (s *streamReader) uvarint() uint64 {
	if s.err != nil {
		return 0
	}
	v, err := binary.ReadUvarint(s.r)
	if err != nil {
		s.fail(err)
	}
	return v
}

// uint32 reads a uvarint that must fit 32 bits.
func (s *streamReader) uint32() uint32 {
	v := s.uvarint()
	if v > math.MaxUint32 {
		s.failf("value %d exceeds 32 bits", v)
		return 0
	}
	return uint32(v)
}

func (s *streamReader) float32() float32 {
	var b [4]byte
	if s.err == nil {
		if _, err := io.ReadFull(s.r, b[:]); err != nil {
			s.fail(err)
		}
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b[:]))
}

// frontCoded reads a string written by streamWriter.frontCoded after prev
// and appends it to dst, returning the grown dst and the string's bytes
// within it.
func (s *streamReader) frontCoded(dst, prev []byte) (grown, str []byte) {
	p, n := s.uvarint(), s.uvarint()
	if s.err != nil {
		return dst, nil
	}
	if p > uint64(len(prev)) || n > maxStringBytes {
		s.failf("front-coded string shares %d bytes with a %d-byte predecessor and adds %d", p, len(prev), n)
		return dst, nil
	}
	start := len(dst)
	dst = append(dst, prev[:p]...)
	dst = slices.Grow(dst, int(n))[:len(dst)+int(n)]
	if _, err := io.ReadFull(s.r, dst[start+int(p):]); err != nil {
		s.fail(err)
		return dst[:start], nil
	}
	return dst, dst[start:]
}

// end checks that the stream holds nothing more, and returns the first
// error.
func (s *streamReader) end() error {
	if s.err == nil {
		if _, err := s.r.ReadByte(); err == nil {
			s.failf("data after the last record")
		} else if !errors.Is(err, io.EOF) {
			s.fail(err)
		}
	}
	return s.err
}
