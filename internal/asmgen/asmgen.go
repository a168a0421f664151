// Package asmgen runs the avo generators (the codecs', BM25's): it writes
// the Go assembly and the Go stub declarations a generator built in an avo
// Context, plus an optional plain Go file (the dispatch tables naming the
// kernels), under a fixed "Code generated" header, so that the output
// depends on the generator alone and not on the paths it was run with: a
// test regenerates into a temporary directory and compares.
package asmgen

import (
	"flag"
	"fmt"
	"go/format"
	"os"
	"strings"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"
	"github.com/mmcloughlin/avo/reg"
)

// Main parses the flags -out (assembly file), -stubs (Go declarations file)
// and, when goSrc is not nil, -go (the file goSrc is written to, after
// gofmt), compiles what c holds for package pkg and writes the files, all
// under the build constraint constraint (terms joined by " && " only). name is the generator,
// as the headers name it. It exits the process on error.
func Main(c *build.Context, name, pkg, constraint string, goSrc []byte) {
	// A flag set of our own: avo's build package defines its own -out and
	// -stubs on the command line's.
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	out := fs.String("out", "", "assembly output file")
	stubs := fs.String("stubs", "", "Go stub output file")
	goOut := fs.String("go", "", "Go tables output file")
	_ = fs.Parse(os.Args[1:])
	if *out == "" || *stubs == "" || (goSrc != nil) != (*goOut != "") {
		fmt.Fprintln(os.Stderr, "usage: go run . -out FILE.s -stubs FILE.go [-go FILE.go]")
		os.Exit(2)
	}
	if goSrc != nil {
		head := "// " + printer.Config{Name: name}.GeneratedWarning() + "\n\n//go:build " + constraint + "\n\npackage " + pkg + "\n\n"
		src, err := format.Source(append([]byte(head), goSrc...))
		if err != nil {
			fail(err)
		}
		if err := os.WriteFile(*goOut, src, 0o644); err != nil {
			fail(err)
		}
	}
	// avo v0.5 takes the old "+build" syntax, in which a comma is AND.
	c.ConstraintExpr(strings.ReplaceAll(constraint, " && ", ","))
	cfg := printer.Config{Name: name, Pkg: pkg}
	asm, err := os.Create(*out)
	if err != nil {
		fail(err)
	}
	stub, err := os.Create(*stubs)
	if err != nil {
		fail(err)
	}
	status := build.Main(&build.Config{
		ErrOut:    os.Stderr,
		MaxErrors: 10,
		Passes: []pass.Interface{
			pass.Compile,
			&pass.Output{Writer: asm, Printer: printer.NewGoAsm(cfg)},
			&pass.Output{Writer: stub, Printer: printer.NewStubs(cfg)},
		},
	}, c)
	if status != 0 {
		os.Exit(status)
	}
}

// Ret is the result slot of the function c is writing.
func Ret(c *build.Context) operand.Mem {
	r, err := c.ReturnIndex(0).Resolve()
	if err != nil {
		panic(err)
	}
	return r.Addr
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}

// prefetchDistance is how far past a block's first byte PrefetchAhead
// asks for data: about nine blocks of the dense sets' bp128 and five of
// their streamvbyte, so that a decoder walking a long list finds the
// next blocks in cache where it would otherwise wait on memory, which
// the SIMD decoders, at 15-30 ns a block, outrun.
const prefetchDistance = 1024

// PrefetchAhead writes lines PREFETCHT0 hints for the 64-byte lines from
// prefetchDistance bytes past the address in base on. A prefetch reads
// nothing the program sees and never faults, so it may point past the
// end of the input, even into a page without access.
func PrefetchAhead(c *build.Context, base reg.Register, lines int) {
	for i := range lines {
		c.PREFETCHT0(operand.Mem{Base: base, Disp: prefetchDistance + 64*i})
	}
}

// NoEscape marks the function being written NOSPLIT and noescape: the
// kernels keep no pointer, and without the pragma every buffer passed to
// them would move to the heap.
func NoEscape(c *build.Context) {
	c.Attributes(attr.NOSPLIT)
	c.Pragma("noescape")
}
