package cuda

import (
	"bytes"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTwinsExportTheSameAPI finds every package of the module with files
// built only with the cuda tag and files built only without it, and checks
// that the two builds export the same API: the same functions and methods
// with the same signatures, the same types (for structs, the same exported
// fields) and the same constants and variables.
func TestTwinsExportTheSameAPI(t *testing.T) {
	root := filepath.Join("..", "..")
	var dirs []string
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && path != root && (strings.HasPrefix(e.Name(), ".") || e.Name() == "testdata") {
			return filepath.SkipDir
		}
		if e.IsDir() && hasTwins(t, path) {
			dirs = append(dirs, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(dirs, filepath.Join(root, "internal", "cuda")) {
		t.Fatalf("found twins in %v, not in this package's own directory", dirs)
	}
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			with, without := exportedAPI(t, dir, []string{"cuda"}), exportedAPI(t, dir, nil)
			for _, d := range with {
				if !slices.Contains(without, d) {
					t.Errorf("only the cuda build has %s", d)
				}
			}
			for _, d := range without {
				if !slices.Contains(with, d) {
					t.Errorf("only the build without cuda has %s", d)
				}
			}
		})
	}
}

// hasTwins reports whether dir holds non-test Go files for the cuda build
// only and for the build without it only.
func hasTwins(t *testing.T, dir string) bool {
	t.Helper()
	files := func(tags []string) []string {
		ctxt := build.Default
		ctxt.BuildTags = tags
		ctxt.CgoEnabled = true
		p, err := ctxt.ImportDir(dir, 0)
		if err != nil {
			return nil // no Go files, or none for this build
		}
		return append(p.GoFiles, p.CgoFiles...)
	}
	with, without := files([]string{"cuda"}), files(nil)
	onlyWith := slices.ContainsFunc(with, func(f string) bool { return !slices.Contains(without, f) })
	onlyWithout := slices.ContainsFunc(without, func(f string) bool { return !slices.Contains(with, f) })
	return onlyWith && onlyWithout
}

// exportedAPI returns the exported declarations of the package in dir as
// built with tags, one string each, sorted.
func exportedAPI(t *testing.T, dir string, tags []string) []string {
	t.Helper()
	ctxt := build.Default
	ctxt.BuildTags = tags
	ctxt.CgoEnabled = true
	p, err := ctxt.ImportDir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	show := func(n ast.Node) string {
		var b bytes.Buffer
		if err := printer.Fprint(&b, fset, n); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	// types prints a field list's types, without the names.
	types := func(l *ast.FieldList) string {
		if l == nil {
			return ""
		}
		var out []string
		for _, f := range l.List {
			for range max(1, len(f.Names)) {
				out = append(out, show(f.Type))
			}
		}
		return strings.Join(out, ", ")
	}
	var api []string
	for _, name := range append(p.GoFiles, p.CgoFiles...) {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				recv := ""
				if d.Recv != nil {
					recv = "(" + types(d.Recv) + ") "
				}
				tparams := ""
				if d.Type.TypeParams != nil {
					tparams = "[" + types(d.Type.TypeParams) + "]"
				}
				api = append(api, "func "+recv+d.Name.Name+tparams+"("+types(d.Type.Params)+") ("+types(d.Type.Results)+")")
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						st, ok := s.Type.(*ast.StructType)
						if !ok {
							api = append(api, "type "+s.Name.Name+" "+show(s.Type))
							continue
						}
						api = append(api, "type "+s.Name.Name+" struct")
						for _, field := range st.Fields.List {
							for _, n := range field.Names {
								if n.IsExported() {
									api = append(api, "field "+s.Name.Name+"."+n.Name+" "+show(field.Type))
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								api = append(api, d.Tok.String()+" "+n.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(api)
	return api
}
