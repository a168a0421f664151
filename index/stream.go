package index

import (
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
	s.z.Write(s.buf) // errors surface in finish through the file writer
	s.buf = s.buf[:0]
}

// restart ends the deflate stream and starts another, independent one
// after it, so that a reader may inflate from there.
func (s *streamWriter) restart() {
	s.end()
	s.z.Reset(s.fw)
}

// end writes the record built so far and ends the deflate stream; errors
// surface in the file writer's finish.
func (s *streamWriter) end() {
	s.flush()
	s.z.Close()
}

// finish ends the deflate stream and finishes the file.
func (s *streamWriter) finish() (FileMeta, error) {
	s.end()
	return s.fw.finish()
}

func (s *streamWriter) abort() { s.fw.abort() }

// streamReader parses the records of an inflated index file through a
// window of inflated bytes. The first error sticks: later reads return
// zero values, and err reports it.
type streamReader struct {
	name   string
	src    io.Reader // the inflater
	window []byte    // inflated bytes not yet parsed
	buf    []byte    // the window's backing array
	done   bool      // src is exhausted
	err    error
}

func newStreamReader(name string, data []byte) *streamReader {
	return &streamReader{name: name, src: flate.NewReader(bytes.NewReader(data)), buf: make([]byte, 1<<16)}
}

// fill makes at least n bytes (n <= len(buf)) available in the window,
// unless the stream ends first; it reports whether they are there.
func (s *streamReader) fill(n int) bool {
	if len(s.window) >= n {
		return true
	}
	if s.done || s.err != nil {
		return false
	}
	k := copy(s.buf, s.window)
	m, err := io.ReadAtLeast(s.src, s.buf[k:], n-k)
	s.window = s.buf[:k+m]
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		s.done = true
	case err != nil:
		s.fail(err)
	}
	return len(s.window) >= n
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
	s.fill(binary.MaxVarintLen64) // fewer at the end of the stream
	v, k := binary.Uvarint(s.window)
	switch {
	case k == 0:
		s.fail(io.ErrUnexpectedEOF)
		return 0
	case k < 0:
		s.failf("uvarint overflows 64 bits")
		return 0
	}
	s.window = s.window[k:]
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
	if s.err != nil {
		return 0
	}
	if !s.fill(4) {
		s.fail(io.ErrUnexpectedEOF)
		return 0
	}
	f := math.Float32frombits(binary.LittleEndian.Uint32(s.window))
	s.window = s.window[4:]
	return f
}

// read fills dst from the stream.
func (s *streamReader) read(dst []byte) {
	for len(dst) > 0 && s.err == nil {
		if !s.fill(1) {
			s.fail(io.ErrUnexpectedEOF)
			return
		}
		k := copy(dst, s.window)
		dst, s.window = dst[k:], s.window[k:]
	}
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
	if s.read(dst[start+int(p):]); s.err != nil {
		return dst[:start], nil
	}
	return dst, dst[start:]
}

// more reports whether the stream holds another record (and no error
// stands).
func (s *streamReader) more() bool { return s.err == nil && s.fill(1) }

// end checks that the stream holds nothing more, and returns the first
// error.
func (s *streamReader) end() error {
	if s.fill(1) {
		s.failf("data after the last record")
	}
	return s.err
}
