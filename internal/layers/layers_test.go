package layers

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// module is this module's path; packages under it are walked, all others
// are leaves.
const module = "github.com/gpusearch/gpusearch"

// Third-party and standard library packages are not walked: the rules are
// about this module's layering, and a package of this module that imports a
// forbidden external package is caught at that import.
func TestLayers(t *testing.T) {
	tests := []struct {
		pkg       string   // package under test, relative to the module
		forbidden []string // import paths it must not reach, each with its subpackages
	}{
		{"api", []string{module + "/indexer", module + "/analytics", module + "/gpu", "golang.org/x/net/html"}},
		{"query", []string{module + "/indexer", module + "/gpu"}},
		{"gpu", []string{module + "/analytics", module + "/indexer", "golang.org/x/net/html"}},
		{"broker", []string{module + "/indexer", module + "/analytics", module + "/gpu", "golang.org/x/net/html"}},
		{"cluster", []string{module + "/indexer", module + "/analytics", module + "/gpu", module + "/query"}},
	}
	for _, variant := range []struct {
		name string
		tags []string
	}{{"default", nil}, {"cuda", []string{"cuda"}}} {
		ctxt := build.Default
		ctxt.BuildTags = variant.tags
		ctxt.CgoEnabled = true // the cuda files use cgo; check them whatever the environment says
		for _, tc := range tests {
			t.Run(tc.pkg+"/"+variant.name, func(t *testing.T) {
				order, parent, err := deps(&ctxt, module+"/"+tc.pkg)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range tc.forbidden {
					// order is breadth first, so the first hit has the shortest chain.
					for _, dep := range order {
						if dep == f || strings.HasPrefix(dep, f+"/") {
							t.Errorf("%s must not depend on %s: %s", tc.pkg, f, chain(parent, dep))
							break
						}
					}
				}
			})
		}
	}
}

// deps walks the imports of root transitively, test files excluded. It
// returns every package reached in breadth-first order, and the package that
// first imported each one (root's is "").
func deps(ctxt *build.Context, root string) ([]string, map[string]string, error) {
	parent := map[string]string{root: ""}
	order := []string{root}
	for i := 0; i < len(order); i++ {
		path := order[i]
		if path != module && !strings.HasPrefix(path, module+"/") {
			continue
		}
		dir := filepath.Join("..", "..", filepath.FromSlash(strings.TrimPrefix(path, module)))
		p, err := ctxt.ImportDir(dir, 0)
		if err != nil {
			return nil, nil, err
		}
		for _, imp := range p.Imports {
			if _, seen := parent[imp]; !seen {
				parent[imp] = path
				order = append(order, imp)
			}
		}
	}
	return order, parent, nil
}

// chain spells the import path from the root to dep, as "a -> b -> dep".
func chain(parent map[string]string, dep string) string {
	links := []string{dep}
	for p := parent[dep]; p != ""; p = parent[p] {
		links = append(links, p)
	}
	for i, j := 0, len(links)-1; i < j; i, j = i+1, j-1 {
		links[i], links[j] = links[j], links[i]
	}
	return strings.Join(links, " -> ")
}
