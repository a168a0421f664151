// Package gpu is gpusearch's CUDA back end, built on gorgonia.org/cu: it
// owns the device, keeps an index's compressed lists resident in device
// memory, decodes them with the kernels in gpu/kernels, and answers
// queries on the GPU with exactly the CPU engines' top-k (Engine).
//
// Builds. Files that import gorgonia.org/cu carry the cuda build tag (cu's
// init exits the process on a machine without a CUDA driver, and a binary
// that imports it needs libcuda.so.1 to start). Each has a _nocuda twin
// with the same API that returns ErrNoCUDA, so the default build compiles
// everywhere and says why a GPU request cannot be served. The pure-Go parts
// (host columns, the CPU reference decode, PTX embedding) build in both.
//
// Device. OpenDevice creates one CUDA context on one GPU. Every CUDA call
// is a closure that runs under the device's lock on its caller's thread,
// locked to it for the call with the context made current there, so a
// Device is safe for concurrent use and its calls are serialized, except
// the query engine's runs, each on a stream of its own, which share the
// lock and overlap.
// Allocations are counted against a budget (DeviceOptions.MemoryBudgetMB,
// default the free memory at open) and fail with ErrOutOfMemory past it.
// A kernel fault (which leaves a CUDA context unusable) is reported as an
// error and makes every later call on that Device return it: the process
// does not crash. Timing uses CUDA events around back-to-back launches on
// the default stream.
//
// Columns. A HostColumn is an encoded column as the index stores it: the
// blocks of one GPU codec, the skip table's byte offsets (the GPU formats'
// endpoint arrays), each block's value count (from the document
// frequencies) and, for docids, each block's base (the previous block's
// last docid, 0 for a list's first block). Upload copies an index's two
// columns and its skip columns to the device once; UploadColumn takes any
// HostColumn, such as the synthetic lists of the benchmark. A DecodeJob
// decodes a range of blocks or a device array of block ids; the k-th block
// goes to row k of the output (stride: the index's block size), as d-gaps
// or as docids with the block-local prefix sum fused into the decode.
// HostColumn.Decode is the CPU reference with the same output layout.
//
// Kernels. kernels/decode.cu holds the decoders (its header comment
// describes the work split); make ptx compiles it to kernels/decode.ptx
// for sm_90 with nvcc, recording the source's sha256 on the first line, and
// the .ptx is embedded. TestPTXFresh fails when the embedded PTX was not
// built from the current source. A cuda build loads the PTX from
// $GPUSEARCH_PTX_DIR when set, so a GPU machine can test freshly compiled
// PTX before it is committed. Without a GPU, TestKernelsOnCPU compiles
// decode.cu as C++ against testdata/qemu (fibers as CUDA threads, barriers
// as warp synchronization) and checks every kernel against the CPU
// reference, garbage input included.
//
// Query engine. NewEngine opens a Device, loads kernels/query.ptx and
// uploads the index (a column whose codec has no GPU decoder is re-encoded
// with the GPU codec of the same block size). A query pass is one launch
// sequence whose counts stay in device memory, read back once: AND selects
// by Parallel Merge Find in the skip column the blocks of each longer list
// that its candidates land in, decodes only those, intersects and compacts,
// then scores the survivors; OR adds each term's postings into dense
// per-document accumulators, term by term; both end in a radix select over
// (score, docid) keys. AND passes always run as waves (qand.go): one launch
// per kernel and step for a whole batch, the queries' candidates laid end
// to end and walked tile by tile, so a batch costs about the launches of
// one pass; a query alone is a wave of one. A batch's OR passes run as
// waves too: one CTA per query and span of documents keeps the span's
// accumulators in shared memory and hands the select only the keys that
// can reach the top-k. Scores follow
// bm25.TermScore operation by operation and add up in query-term order, so
// they equal the CPU's bit for bit. SearchBatch queues many passes per
// synchronization. Each caller holds a workspace of its own (device
// scratch, result slots and their host copy) and a stream of its own (a
// lane), so callers plan, lay out and read back their batches on the host
// while another caller's launch sequence runs, and the runs of different
// callers overlap on the device: one's short kernels beside another's,
// one's launches while another's results come back. An engine has four
// workspaces, and a fifth caller waits for one; each grows to the largest
// wave it served and keeps its memory, so the memory budget must leave
// room for four. Usage accounts for the runs (host time holding the
// device, device time by CUDA events). Profile times the phases
// with CUDA events. The engine drives its device through a small
// backend interface (qbackend.go): the CUDA one in a cuda build, and in
// the CPU tests a child process running the same kernels compiled for the
// CPU under testdata/qemu, so that the kernels and the launch sequences are
// checked against the exhaustive scorer without a GPU.
// docs/gpu-queries.md describes the algorithms and their measurement.
//
// Decisions. Kernel parameters are 8-byte values (cu copies 8 bytes per
// argument). Host-to-device copies read Go memory (or the index's mapped
// files) directly: the index is uploaded once. Large device-to-host reads
// (the analytics' results) pass through a page-locked stage that host
// cores copy out in parallel (stage_cuda.go, copy.go).
package gpu
