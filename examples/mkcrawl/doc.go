// Command mkcrawl renders the documentation of the Go standard library as a
// static HTML crawl, laid out as `wget --recursive` lays out a site:
// OUT/HOST/PATH, with index.html standing for a directory URL.
//
// Usage:
//
//	go run ./examples/mkcrawl -out examples/crawl
//
// It reads the package sources under -src (default: the toolchain's
// GOROOT/src), keeps the files that build for linux/amd64, runs them through
// go/doc and writes, under OUT/pkg.go.dev:
//
//   - index.html: the list of packages with their one-line synopses;
//   - IMPORTPATH/index.html: the package documentation, its index, and its
//     constants and variables;
//   - IMPORTPATH/func.NAME.html and IMPORTPATH/type.NAME.html: one page for
//     each exported function and type (declaration, doc comment and, for a
//     type, its values, constructors and methods). The prefixes keep a
//     function named Index apart from index.html.
//
// Invariants: the output depends only on the sources and the toolchain's
// go/doc (packages, names and files are sorted; nothing records the time or
// the host), so two runs over one GOROOT give identical bytes. Pages are
// rendered with html/template, so every text is escaped. Every page carries
// the same <style>, <script> and <noscript> blocks, which an indexer must
// drop. A page's links are relative, as `wget --convert-links` leaves them.
//
// Decisions:
//   - Directories named internal, vendor, cmd or testdata, or starting with
//     "." or "_", are skipped, and so are directories whose files do not
//     build for linux/amd64 (e.g. GOEXPERIMENT packages) and main packages.
//   - -skip (default "debug,go,syscall") leaves out whole import-path trees
//     to keep the crawl near 4 MB: machine tables and toolchain packages
//     matter least to someone searching the library's documentation.
//   - The package index lists names, not full signatures, for the same
//     reason; the signatures are on the function and type pages.
//   - Package builtin is rendered with go/doc's AllDecls, as pkg.go.dev does,
//     since its names are lowercase.
//   - Pages whose file names would differ only in letter case are refused
//     with an error, so that the crawl checks out on case-insensitive file
//     systems.
//   - The previous OUT/HOST tree is removed first, so a run never leaves
//     stale pages behind; nothing else under OUT is touched.
package main
