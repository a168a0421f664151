// Package gpu runs package analytics' tasks on a GPU, on the compressed
// corpus itself (G-TADOC): OpenDevice opens a GPU, Device.UploadCorpus
// copies a corpus's grammar and layout to it with the pools of hash tables
// the tasks need, and Corpus.Run computes a task there, with the same
// result as analytics.Run on the CPU. Device.UploadText is the
// uncompressed baseline: each run first reads the corpus's words from
// text on the device.
//
// Tasks. Word counts and sort run top-down; the per-document tables
// (invindex, termvector, rankedinv, seqcount) run bottom-up or top-down
// (Auto picks, see traversal), bottom-up on an inlined copy of the grammar
// that Prepare (or the first run needing it) uploads. Results are
// compacted, sorted and split on the device, and only the result is
// copied back; large reads pass through internal/cuda's page-locked stage.
// ErrAnalyticsTask reports what the device does not run.
//
// Kernels. kernels/analytics.cu holds the kernels (its header comment
// describes the scheduling and the tables); make ptx compiles it to
// kernels/analytics.ptx, which is embedded. go generate writes
// analytics_kernels.go from its signatures (internal/kernelgen): a typed
// launch function per kernel and the list of kernels UploadCorpus loads;
// tests fail when it is stale or a launch does not fit the PTX. The device
// layer is
// internal/cuda: without the cuda build tag OpenDevice fails with
// ErrNoCUDA. The tests that need a GPU carry the cuda tag and run from
// this directory (they read ../../examples/crawl).
package gpu
