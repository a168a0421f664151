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

// fileWriter writes one index file under a temporary name, checksumming as
// it goes; commit fsyncs and renames it into place.
type fileWriter struct {
	name string
	f    *os.File
	buf  *bufio.Writer
	crc  hash.Hash32
	size int64
}

func createFile(dir, name string) (*fileWriter, error) {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
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

// commit flushes, fsyncs and renames the file to its final name.
func (w *fileWriter) commit(dir string) (FileMeta, error) {
	if err := w.buf.Flush(); err != nil {
		w.abort()
		return FileMeta{}, fmt.Errorf("index: write %s: %w", w.name, err)
	}
	if err := w.f.Sync(); err != nil {
		w.abort()
		return FileMeta{}, fmt.Errorf("index: sync %s: %w", w.name, err)
	}
	if err := w.f.Close(); err != nil {
		os.Remove(w.f.Name())
		return FileMeta{}, fmt.Errorf("index: close %s: %w", w.name, err)
	}
	if err := os.Rename(w.f.Name(), filepath.Join(dir, w.name)); err != nil {
		os.Remove(w.f.Name())
		return FileMeta{}, fmt.Errorf("index: rename %s: %w", w.name, err)
	}
	return FileMeta{Size: w.size, CRC32: w.crc.Sum32()}, nil
}

// abort removes the temporary file.
func (w *fileWriter) abort() {
	w.f.Close()
	os.Remove(w.f.Name())
}

// syncDir fsyncs a directory so that renames inside it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
