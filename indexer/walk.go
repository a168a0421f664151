package indexer

import (
	"context"
	"errors"
	"fmt"
	"hash/crc64"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gpusearch/gpusearch/indexer/extract"
)

// docFile is one file that will become a document.
type docFile struct {
	url   string
	path  string // what to open: the file, or a symlink's target inside the crawl
	size  int64
	mtime int64 // modification time when walked, ns since 1970
	kind  extract.Kind
	id    fileID // the file the walk saw at path
}

// walked, when set (by tests), is called when a walk has listed the crawl,
// so that a test can change the crawl between the walk and the reads.
var walked func()

// walk lists the crawl's documents in walk order and records the files it
// passes over in rep. It stops with ctx's error when ctx ends.
func walk(ctx context.Context, root string, opts Options, rep *Report) ([]docFile, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("indexer: crawl directory: %w", err)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("indexer: crawl directory %s is not a directory", root)
	}
	var files []docFile
	err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(real, p)
		if err != nil {
			rep.Unreadable.add(rel, err)
			if d != nil && d.IsDir() && p != real {
				return fs.SkipDir
			}
			return nil
		}
		if p != real && strings.HasPrefix(d.Name(), ".") {
			rep.Hidden.add(rel, nil)
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		target := p
		var st fs.FileInfo
		if d.Type()&fs.ModeSymlink != 0 {
			t, tst, ok := insideTarget(real, p)
			if !ok {
				rep.UnsafeSymlinks.add(rel, nil)
				return nil
			}
			target, st = t, tst
		} else {
			// Lstat, not the directory entry's type: the entry may have
			// changed since the directory was read.
			if st, err = os.Lstat(p); err != nil {
				rep.Unreadable.add(rel, err)
				return nil
			}
			if !st.Mode().IsRegular() {
				rep.Unsupported.add(rel, nil)
				return nil
			}
		}
		id := idOf(st)
		kind, err := classify(target, d.Name(), id)
		if err != nil {
			rep.unreadable(rel, err)
			return nil
		}
		if kind == extract.Skip {
			rep.Unsupported.add(rel, nil)
			return nil
		}
		if st.Size() > opts.MaxDocBytes && opts.Oversize == "skip" {
			rep.Oversize.add(rel, nil)
			return nil
		}
		files = append(files, docFile{url: urlOf(filepath.ToSlash(rel)), path: target, size: st.Size(),
			mtime: st.ModTime().UnixNano(), kind: kind, id: id})
		return nil
	})
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return nil, fmt.Errorf("indexer: walk %s: %w", root, err)
	}
	if walked != nil {
		walked()
	}
	return files, nil
}

// insideTarget resolves a symlink and reports whether it names a regular
// file inside root, returning the file and its FileInfo.
func insideTarget(root, link string) (string, fs.FileInfo, bool) {
	t, err := filepath.EvalSymlinks(link)
	if err != nil {
		return "", nil, false
	}
	rel, err := filepath.Rel(root, t)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", nil, false
	}
	st, err := os.Lstat(t)
	if err != nil || !st.Mode().IsRegular() {
		return "", nil, false
	}
	return t, st, true
}

// classify decides a file's kind from its name, sniffing its first bytes
// when the name does not settle it.
func classify(path, name string, id fileID) (extract.Kind, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".html", ".htm", ".txt", ".md":
		return extract.Classify(name, nil), nil
	}
	f, err := openWalked(path, id)
	if err != nil {
		return extract.Skip, err
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return extract.Skip, err
	}
	return extract.Classify(name, head[:n]), nil
}

// ErrChanged marks a crawl file that is no longer the file the walk
// listed: replaced by another, or turned into a symbolic link, a
// directory, a named pipe or a device.
var ErrChanged = errors.New("changed since the walk")

// fileID is a file's identity: its device and inode numbers.
type fileID struct{ dev, ino uint64 }

// idOf returns a file's identity from its FileInfo (zero where the system
// gives none).
func idOf(st fs.FileInfo) fileID {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return fileID{dev: uint64(s.Dev), ino: uint64(s.Ino)}
	}
	return fileID{}
}

// openWalked opens a file the walk listed, for reading, and never blocks:
// a named pipe or a device put in the file's place would block a plain
// open, or the first read, forever. So the file is opened non-blocking
// and without following a final symbolic link, and then must be a regular
// file with the identity the walk saw (id; zero accepts any regular file).
// Otherwise openWalked fails with an error wrapping ErrChanged that says
// what the file has become.
func openWalked(path string, id fileID) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%w: now a symbolic link", ErrChanged)
		}
		return nil, err
	}
	st, err := f.Stat()
	switch {
	case err != nil:
	case !st.Mode().IsRegular():
		err = fmt.Errorf("%w: now %s", ErrChanged, typeName(st.Mode()))
	case id != (fileID{}) && idOf(st) != id:
		err = fmt.Errorf("%w: replaced by another file", ErrChanged)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// typeName names the type of a file that is not a regular file.
func typeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file (" + m.Type().String() + ")"
}

// text reads the file and extracts its title and text from its first
// maxBytes bytes (truncated reports a longer file), n the number of bytes
// read and hash their hash (contentHash).
func (f docFile) text(maxBytes int64) (title string, text []byte, n int64, truncated bool, hash uint64, err error) {
	data, truncated, err := f.read(maxBytes)
	if err != nil {
		return "", nil, 0, false, 0, err
	}
	if f.kind == extract.HTML {
		title, text = extract.HTMLDoc(data)
	} else {
		text = extract.PlainText(data)
		title = extract.Title(text)
	}
	return title, text, int64(len(data)), truncated, contentHash(data), nil
}

// read reads the file's first maxBytes bytes; truncated reports a longer
// file.
func (f docFile) read(maxBytes int64) (data []byte, truncated bool, err error) {
	fh, err := openWalked(f.path, f.id)
	if err != nil {
		return nil, false, err
	}
	data, err = io.ReadAll(io.LimitReader(fh, maxBytes+1))
	fh.Close()
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > maxBytes {
		data, truncated = data[:maxBytes], true
	}
	return data, truncated, nil
}

// crc64Table is contentHash's table.
var crc64Table = crc64.MakeTable(crc64.ECMA)

// contentHash is the hash index.Source records of the bytes a file gave
// the index: CRC-64 (ECMA), which the standard library computes at
// gigabytes a second and which stays the same from one process to the
// next.
func contentHash(data []byte) uint64 { return crc64.Checksum(data, crc64Table) }

// urlOf maps a slash-separated path relative to the crawl root to a URL.
func urlOf(rel string) string {
	host, _, ok := strings.Cut(rel, "/")
	if ok && looksLikeHost(host) {
		return "http://" + rel
	}
	return rel
}

func looksLikeHost(s string) bool {
	if s == "localhost" || strings.HasPrefix(s, "localhost:") {
		return true
	}
	if !strings.Contains(s, ".") || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") {
		return false
	}
	for _, r := range s {
		if !(r == '.' || r == '-' || r == ':' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
