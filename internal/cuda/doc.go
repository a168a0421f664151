// Package cuda is gpusearch's device layer, the only package that imports
// gorgonia.org/cu: a GPU's context (Device), its memory (Buffer), the
// page-locked stage that large reads pass through, PTX modules and their
// kernels (Module), streams and events, and launch chains queued as CUDA
// graphs (Graph). The search engine (package gpu)
// and the text analytics (package analytics/gpu) build on it.
//
// Builds. The files that import cu carry the cuda build tag (cu's init
// exits the process on a machine without a CUDA driver, and a binary that
// imports it needs libcuda.so.1 to start). A build without the tag gets
// the same API from nocuda.go, where Open fails with ErrNoCUDA, so that
// every package above compiles in both builds and says why a GPU request
// cannot be served. TestTwinsExportTheSameAPI checks that the two builds
// of every package with such twins export the same API.
//
// Calls. A Device serializes its calls: Do runs a function with the
// device to itself, on the caller's thread, locked to it for the call
// with the context made current there, so a Device is safe for concurrent
// use and a call costs no hand-off to another thread. DoShared lets work
// queued on streams of its callers' own run side by side. Functions and
// methods documented as running inside Do (launches, stream and event
// operations, Sync) assume that lock and the current context; the others
// take it themselves.
//
// Faults. A kernel fault leaves a CUDA context unusable: Sync reports it
// as an error, and every later call on that Device returns it. The
// process does not crash.
//
// PTX. Each package embeds its kernels/*.ptx, which make ptx compiles
// from kernels/*.cu with the sha256 of the source and of its directory's
// headers (*.cuh) on the first line (TestPTXFresh checks it); Load loads one, or the copy in $GPUSEARCH_PTX_DIR when
// that is set, so that a GPU machine can test freshly compiled PTX before
// it is committed.
package cuda
