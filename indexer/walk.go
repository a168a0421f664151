package indexer

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpusearch/gpusearch/indexer/extract"
)

// docFile is one file that will become a document.
type docFile struct {
	url  string
	path string // what to open: the file, or a symlink's target inside the crawl
	size int64
	kind extract.Kind
}

// walk lists the crawl's documents in walk order and records the files it
// passes over in rep.
func walk(root string, opts Options, rep *Report) ([]docFile, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("indexer: crawl directory: %w", err)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("indexer: crawl directory %s is not a directory", root)
	}
	var files []docFile
	err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(real, p)
		if err != nil {
			rep.Unreadable.add(rel, err)
			if d != nil && d.IsDir() && p != real {
				return fs.SkipDir
			}
			return nil
		}
		if p != real && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		target := p
		if d.Type()&fs.ModeSymlink != 0 {
			t, ok := insideTarget(real, p)
			if !ok {
				rep.UnsafeSymlinks.add(rel, nil)
				return nil
			}
			target = t
		} else if !d.Type().IsRegular() {
			rep.Unsupported.add(rel, nil)
			return nil
		}
		st, err := os.Stat(target)
		if err != nil {
			rep.Unreadable.add(rel, err)
			return nil
		}
		kind, err := classify(target, d.Name())
		if err != nil {
			rep.Unreadable.add(rel, err)
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
		files = append(files, docFile{url: urlOf(filepath.ToSlash(rel)), path: target, size: st.Size(), kind: kind})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("indexer: walk %s: %w", root, err)
	}
	return files, nil
}

// insideTarget resolves a symlink and reports whether it names a regular
// file inside root.
func insideTarget(root, link string) (string, bool) {
	t, err := filepath.EvalSymlinks(link)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(root, t)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	st, err := os.Stat(t)
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return t, true
}

// classify decides a file's kind from its name, sniffing its first bytes
// when the name does not settle it.
func classify(path, name string) (extract.Kind, error) {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".html", ".htm", ".txt", ".md":
		return extract.Classify(name, nil), nil
	}
	f, err := os.Open(path)
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
