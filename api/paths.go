package api

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/gpusearch/gpusearch/config"
)

// indexRoot is the directory reloads pick indexes under
// (server.index_root, else the directory holding server.index). Answers
// show index paths relative to it, and nothing of what lies outside.
type indexRoot struct {
	abs  string // absolute, as configured
	real string // abs with its symbolic links resolved
}

func newIndexRoot(c config.Server) (indexRoot, error) {
	dir := c.IndexRoot
	if dir == "" {
		dir = filepath.Dir(c.Index)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return indexRoot{}, fmt.Errorf("server.index_root: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return indexRoot{}, fmt.Errorf("server.index_root: %w", err)
	}
	return indexRoot{abs: abs, real: real}, nil
}

// resolve turns a reload's index name, relative to the root or absolute
// inside it, into the directory to open, with its symbolic links
// resolved. A name outside the root is refused before the file system is
// asked (400); a missing directory, or one that a symbolic link takes out
// of the root, gets one answer (409), so that nothing tells whether a
// directory outside the root exists.
func (ro indexRoot) resolve(name string) (string, error) {
	rel := name
	if filepath.IsAbs(name) {
		rel = ro.rel(name)
	}
	if rel == "" || !filepath.IsLocal(rel) {
		return "", badParam("index %q is not under server.index_root: name a directory under it, relative to it", name)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(ro.abs, rel))
	if err != nil || ro.rel(real) == "" {
		return "", errorf(http.StatusConflict, "no index directory %q under server.index_root", name)
	}
	return real, nil
}

// rel is an absolute path relative to the root, "." for the root, or ""
// when it lies outside.
func (ro indexRoot) rel(path string) string {
	for _, root := range []string{ro.abs, ro.real} {
		if r, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(r) {
			return r
		}
	}
	return ""
}

// show is how answers name an index directory: relative to the root, or
// "" (left out) outside it.
func (ro indexRoot) show(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	if r := ro.rel(abs); r != "" {
		return r
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return ro.rel(real)
	}
	return ""
}

// hide rewrites a message about dir so that it names dir as shown and
// other paths relative to the root.
func (ro indexRoot) hide(msg, dir string) string {
	shown := ro.show(dir)
	if shown == "" { // only the configured index can lie outside
		shown = "server.index"
	}
	if abs, err := filepath.Abs(dir); err == nil {
		msg = strings.ReplaceAll(msg, abs, shown)
	}
	msg = strings.ReplaceAll(msg, dir, shown)
	for _, root := range []string{ro.real, ro.abs} {
		msg = strings.ReplaceAll(msg, root+string(filepath.Separator), "")
		msg = strings.ReplaceAll(msg, root, ".")
	}
	return msg
}
