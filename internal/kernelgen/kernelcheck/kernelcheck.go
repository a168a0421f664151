// Package kernelcheck checks a package's kernel launches against its
// compiled PTX without a GPU: every launch names a kernel of the PTX and
// passes one 8-byte argument per parameter, and every kernel is launched.
// A wrong count or a 4-byte parameter compiles in Go and fails, or reads
// garbage, only on the device.
//
// A launch is a call, in the package's non-test Go files, of a method
// named launch with the arguments (kernel, grid, block, args...), as the
// generated wrappers make, or Launch with (stream, kernel, grid, block,
// args...), as internal/cuda.Module's. Calls that forward a variadic args...
// pass on a launch rather than make one and are not checked. The kernel is
// a string constant, or an expression "prefix" + ..., which stands for
// every kernel whose name starts with prefix, or a variable assigned such
// values in the same function.
package kernelcheck

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// entry matches a PTX kernel entry and its parameter list.
var entry = regexp.MustCompile(`\.entry\s+(\w+)\s*\(([^)]*)\)`)

// Entries returns the kernels of a PTX module (its .entry directives),
// each with its parameters' types (.u64, .u32, ...) in order.
func Entries(ptx []byte) map[string][]string {
	kernels := map[string][]string{}
	for _, m := range entry.FindAllSubmatch(ptx, -1) {
		var types []string
		for _, p := range strings.Split(string(m[2]), ",") {
			if f := strings.Fields(p); len(f) >= 2 && f[0] == ".param" {
				types = append(types, f[1])
			}
		}
		kernels[string(m[1])] = types
	}
	return kernels
}

// Launch is one kernel launch in Go source.
type Launch struct {
	Pos    token.Position
	Kernel string // the kernel's name, or the prefix of the names it stands for
	Prefix bool   // Kernel is a prefix
	Args   int    // the arguments it passes to the kernel's parameters
}

// String is the launch's kernel, a prefix followed by *.
func (l Launch) String() string {
	if l.Prefix {
		return l.Kernel + "*"
	}
	return l.Kernel
}

// Launches returns the kernel launches of the non-test Go files in dir.
func Launches(dir string) ([]Launch, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		return nil, err
	}
	var launches []Launch
	var errs []error
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					name, args, ok := launchCall(call)
					if !ok {
						return true
					}
					pos := fset.Position(call.Pos())
					kernels, err := kernelNames(fn.Body, name)
					if err != nil {
						errs = append(errs, fmt.Errorf("%s: %w", pos, err))
					}
					for _, k := range kernels {
						k.Pos, k.Args = pos, args
						launches = append(launches, k)
					}
					return true
				})
			}
		}
	}
	slices.SortFunc(launches, func(a, b Launch) int {
		if c := strings.Compare(a.Pos.Filename, b.Pos.Filename); c != 0 {
			return c
		}
		return a.Pos.Offset - b.Pos.Offset
	})
	return launches, errors.Join(errs...)
}

// launchCall returns a launch call's kernel expression and the number of
// arguments it passes to the kernel; ok is false for any other call.
func launchCall(call *ast.CallExpr) (name ast.Expr, args int, ok bool) {
	sel, isSel := call.Fun.(*ast.SelectorExpr)
	if !isSel || call.Ellipsis.IsValid() {
		return nil, 0, false
	}
	var at int // the kernel argument's index; grid and block follow it
	switch sel.Sel.Name {
	case "launch":
		at = 0
	case "Launch":
		at = 1
	default:
		return nil, 0, false
	}
	if len(call.Args) < at+3 {
		return nil, 0, false
	}
	return call.Args[at], len(call.Args) - at - 3, true
}

// kernelNames resolves a launch's kernel expression in the body of the
// function that holds it.
func kernelNames(body *ast.BlockStmt, e ast.Expr) ([]Launch, error) {
	switch e := e.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(e.Value)
		if e.Kind != token.STRING || err != nil {
			return nil, fmt.Errorf("kernel name %s is not a string", e.Value)
		}
		return []Launch{{Kernel: s}}, nil
	case *ast.BinaryExpr:
		if e.Op == token.ADD {
			if k, err := kernelNames(body, e.X); err == nil && len(k) == 1 {
				k[0].Prefix = true
				return k, nil
			}
		}
	case *ast.Ident:
		var values []ast.Expr
		ast.Inspect(body, func(n ast.Node) bool {
			if a, ok := n.(*ast.AssignStmt); ok && len(a.Lhs) == len(a.Rhs) {
				for i, l := range a.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name == e.Name {
						values = append(values, a.Rhs[i])
					}
				}
			}
			return true
		})
		var all []Launch
		for _, v := range values {
			k, err := kernelNames(body, v)
			if err != nil {
				return nil, err
			}
			all = append(all, k...)
		}
		if len(all) > 0 {
			return all, nil
		}
	}
	return nil, errors.New("cannot tell which kernel the launch names")
}

// Check returns an error for each launch of dir's Go files that names no
// kernel of the PTX modules ptx or passes other than one argument per
// parameter, each kernel parameter that is not 8 bytes, and each kernel
// that no launch names.
func Check(dir string, ptx ...[]byte) error {
	kernels := map[string][]string{}
	for _, p := range ptx {
		for k, params := range Entries(p) {
			kernels[k] = params
		}
	}
	launches, err := Launches(dir)
	errs := []error{err}
	launched := map[string]bool{}
	for _, l := range launches {
		matched := 0
		for k, params := range kernels {
			if k != l.Kernel && !(l.Prefix && strings.HasPrefix(k, l.Kernel)) {
				continue
			}
			matched++
			launched[k] = true
			if len(params) != l.Args {
				errs = append(errs, fmt.Errorf("%s: launch of %s passes %d arguments, the kernel has %d parameters", l.Pos, k, l.Args, len(params)))
			}
		}
		if matched == 0 {
			errs = append(errs, fmt.Errorf("%s: launch of %s: no such kernel", l.Pos, l))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(kernels)) {
		if !launched[k] {
			errs = append(errs, fmt.Errorf("kernel %s is never launched", k))
		}
		for i, t := range kernels[k] {
			if !slices.Contains([]string{".u64", ".b64", ".s64"}, t) {
				errs = append(errs, fmt.Errorf("kernel %s: parameter %d is %s, not 8 bytes", k, i, t))
			}
		}
	}
	return errors.Join(errs...)
}
