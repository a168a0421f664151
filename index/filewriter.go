package index

import (
	"bufio"
	"fmt"
	"hash"
	"hash/crc32"
	"os"
	"path/filepath"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fileWriter writes one data file of a new generation, checksumming as it
// goes; finish fsyncs it. The file has its final name from the start:
// nothing reads a generation before meta.json names it.
type fileWriter struct {
	name string
	f    *os.File
	buf  *bufio.Writer
	crc  hash.Hash32
	size int64
}

func createFile(dir, name string) (*fileWriter, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("index: create %s: %w", name, err)
	}
	return &fileWriter{name: name, f: f, buf: bufio.NewWriterSize(f, 1<<20), crc: crc32.New(castagnoli)}, nil
}

func (w *fileWriter) Write(p []byte) (int, error) {
	w.crc.Write(p)
	w.size += int64(len(p))
	return w.buf.Write(p)
}

// finish flushes, fsyncs and closes the file, and returns its size and
// checksum.
func (w *fileWriter) finish() (FileMeta, error) {
	err := w.buf.Flush()
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return FileMeta{}, fmt.Errorf("index: write %s: %w", w.name, err)
	}
	return FileMeta{Size: w.size, CRC32: w.crc.Sum32()}, nil
}

// abort closes the file; the writer removes its generation.
func (w *fileWriter) abort() { w.f.Close() }
