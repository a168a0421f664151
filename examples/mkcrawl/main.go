package main

import (
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// options holds the command-line settings.
type options struct {
	src  string // root of the package sources, e.g. GOROOT/src
	out  string // crawl directory; pages go under out/host
	host string // host name, the first path element of every page
	skip string // comma-separated import paths whose trees are left out
}

// defaultSkip keeps the crawl under 4 MB: it leaves out the trees whose
// pages are mostly machine tables (debug, syscall) or toolchain
// internals (go).
const defaultSkip = "debug,go,syscall"

func main() {
	var o options
	flag.StringVar(&o.src, "src", filepath.Join(build.Default.GOROOT, "src"), "root of the Go package sources")
	flag.StringVar(&o.out, "out", "", "crawl directory to write (required); its HOST folder is replaced")
	flag.StringVar(&o.host, "host", "pkg.go.dev", "host name under which the pages are laid out")
	flag.StringVar(&o.skip, "skip", defaultSkip, "comma-separated import paths to leave out, with all below them")
	flag.Parse()
	if o.out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: mkcrawl -out DIR [-src GOROOT/src] [-host NAME] [-skip LIST]")
		os.Exit(2)
	}
	st, err := generate(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkcrawl:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "mkcrawl: %d packages, %d documents, %d bytes under %s\n",
		st.packages, st.docs, st.bytes, filepath.Join(o.out, o.host))
}

// stats counts what generate wrote.
type stats struct {
	packages int
	docs     int
	bytes    int64
}

// pkgInfo is one package ready to render.
type pkgInfo struct {
	importPath string
	fset       *token.FileSet
	doc        *doc.Package
}

// generate loads every package under o.src and writes the crawl.
func generate(o options) (stats, error) {
	if o.host == "" || strings.ContainsAny(o.host, `/\`) || o.host == "." || o.host == ".." {
		return stats{}, fmt.Errorf("bad host %q", o.host)
	}
	pkgs, err := loadAll(o.src, strings.Split(o.skip, ","))
	if err != nil {
		return stats{}, err
	}
	if len(pkgs) == 0 {
		return stats{}, fmt.Errorf("no packages under %s", o.src)
	}
	root := filepath.Join(o.out, o.host)
	if err := os.RemoveAll(root); err != nil {
		return stats{}, err
	}
	w := &writer{root: root}
	if err := renderSite(w, pkgs); err != nil {
		return stats{}, err
	}
	return stats{packages: len(pkgs), docs: w.docs, bytes: w.bytes}, nil
}

// skipDir reports whether a directory of that name is left out with all it holds.
func skipDir(name string) bool {
	switch name {
	case "internal", "vendor", "cmd", "testdata":
		return true
	}
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// loadAll walks src in lexical order and loads every package found, except
// those at or below the import paths in skip.
func loadAll(src string, skip []string) ([]*pkgInfo, error) {
	ctxt := build.Default
	ctxt.GOOS, ctxt.GOARCH, ctxt.CgoEnabled = "linux", "amd64", true
	ctxt.BuildTags = nil
	var pkgs []*pkgInfo
	err := filepath.WalkDir(src, func(dir string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if dir != src && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(src, dir)
		if err != nil || rel == "." {
			return err
		}
		importPath := filepath.ToSlash(rel)
		if slices.Contains(skip, importPath) {
			return filepath.SkipDir
		}
		p, err := loadPackage(&ctxt, dir, importPath)
		if err != nil {
			return err
		}
		if p != nil {
			pkgs = append(pkgs, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].importPath < pkgs[j].importPath })
	return pkgs, nil
}

// loadPackage parses the files of dir that build for ctxt and computes their
// documentation. It returns nil for a directory with no such files and for a
// main package.
func loadPackage(ctxt *build.Context, dir, importPath string) (*pkgInfo, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		ok, err := ctxt.MatchFile(dir, name)
		if err != nil {
			return nil, fmt.Errorf("match %s: %w", filepath.Join(dir, name), err)
		}
		if !ok {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if len(files) > 0 && f.Name.Name != files[0].Name.Name {
			return nil, fmt.Errorf("%s: packages %s and %s in one directory", dir, files[0].Name.Name, f.Name.Name)
		}
		files = append(files, f)
	}
	if len(files) == 0 || files[0].Name.Name == "main" {
		return nil, nil
	}
	var mode doc.Mode
	if importPath == "builtin" {
		mode = doc.AllDecls
	}
	dp, err := doc.NewFromFiles(fset, files, importPath, mode)
	if err != nil {
		return nil, fmt.Errorf("doc %s: %w", importPath, err)
	}
	return &pkgInfo{importPath: importPath, fset: fset, doc: dp}, nil
}

// writer writes pages under root and counts them.
type writer struct {
	root  string
	docs  int
	bytes int64
	seen  map[string]string // lowercased slash path -> path as written
}

// write stores data at the slash-separated path rel under w.root.
func (w *writer) write(rel string, data []byte) error {
	if w.seen == nil {
		w.seen = make(map[string]string)
	}
	key := strings.ToLower(rel)
	if prev, ok := w.seen[key]; ok {
		return fmt.Errorf("pages %s and %s differ only in letter case", prev, rel)
	}
	w.seen[key] = rel
	if rel != path.Clean(rel) || path.IsAbs(rel) || strings.HasPrefix(rel, "../") {
		return errors.New("bad page path " + rel)
	}
	name := filepath.Join(w.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		return err
	}
	w.docs++
	w.bytes += int64(len(data))
	return nil
}
