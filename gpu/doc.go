// Package gpu is gpusearch's CUDA back end, built on gorgonia.org/cu: it
// owns the device, keeps an index's compressed lists resident in device
// memory, decodes them with the kernels in gpu/kernels, and answers
// queries on the GPU with exactly the CPU engines' top-k (Engine).
//
// Layout. The device layer (context, buffers, PTX modules, streams,
// events, the page-locked read stage) is internal/cuda, the only package
// that imports gorgonia.org/cu; GPU text analytics is analytics/gpu. This
// package holds the search side: decoding (device.go, decode.go,
// column.go), the query engine (engine.go, qengine.go and the q*.go files
// it plans and launches with), list intersection (intersect.go,
// intersector.go) and their kernels (kernels/decode.cu, kernels/query.cu).
//
// Builds. Every file builds with and without the cuda tag: only
// internal/cuda has cuda and nocuda twins, and without the tag its Open
// fails, so OpenDevice, NewEngine and NewIntersector return ErrNoCUDA
// (which wraps query.ErrNoGPU) and the default build compiles everywhere
// and says why a GPU request cannot be served. Tests that need a GPU carry
// the cuda tag; the emulated ones run without it.
//
// Device. OpenDevice creates one CUDA context on one GPU and loads the
// decode kernels. Its calls are serialized by internal/cuda (each on its
// caller's thread with the context current there), so a Device is safe
// for concurrent use, except the query engine's runs, each on a stream of
// its own, which share the lock and overlap.
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
// describes the work split; one warp's decoder of a block is in
// kernels/blockdec.cuh, which query.cu's fused AND and OR kernels share);
// make ptx compiles it to kernels/decode.ptx for sm_90 with nvcc,
// recording the sha256 of the source and the directory's headers on the
// first line, and only the .ptx is embedded. internal/cuda's TestPTXFresh fails when a
// committed PTX was not built from the current source. A cuda build loads
// the PTX from $GPUSEARCH_PTX_DIR when set, so a GPU machine can test
// freshly compiled PTX before it is committed. Without a GPU,
// TestKernelsOnCPU compiles decode.cu as C++ against testdata/qemu (fibers
// as CUDA threads, barriers as warp synchronization) and checks every
// kernel against the CPU reference, garbage input included.
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
// can reach the top-k; so does a single OR pass on an index of at least
// a span per multiprocessor. A query alone runs fewer launches: the last
// CTA of a step's kernel scans or picks or finishes for the next (a
// ticket word), one kernel decodes both columns, and its last step
// scores as it compacts; its scratch, grids and counts come from
// power-of-two size classes, so its graph's parameters repeat. Scores follow
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
// room for four. On the device, a lane records its run's launches and
// memsets and queues them as one CUDA graph at each copy (internal/cuda's
// Graph: the executable graph of each shape kept and patched where the
// next run's parameters differ), so a launch chain costs one graph launch
// instead of one launch a kernel (Options.NoGraphs turns it off). Usage accounts for the runs (host time holding the
// device, device time by CUDA events). Profile times the phases
// with CUDA events. The engine drives its device through a small
// backend interface (qbackend.go): the device's (backend.go), and in the
// CPU tests a child process running the same kernels compiled for the CPU
// under testdata/qemu (compiled once per test run), so that the kernels
// and the launch sequences are checked against the exhaustive scorer
// without a GPU.
// docs/gpu-queries.md describes the algorithms and their measurement.
//
// List cache. An index whose columns and a scratch reserve (a quarter of
// the budget) exceed Options.MemoryBudgetMB, or an engine given
// Options.CacheMB, keeps its short lists resident and its long ones (at
// least LongListBytes of docids and frequencies) in page-locked host
// memory, with a device-side cache of the rest of the budget
// (qcache.go, listcache.go; the idea is the GPU index cache of Ding, He
// and Suel's section 5). Before a batch's launch sequences, its groups of
// queries whose long lists fit the cache together pin their lists, and
// the missing ones are copied in (their bytes, then their rows' offsets)
// in a run of their own, evicting unpinned lists by the policy: LRU, or
// LFU with dynamic aging. The kernels do not change: both columns' data
// are one arena (short docids, short frequencies, the cache), and a
// spacer row after each long list (and after a list followed by one)
// gives every list the offset after its last block, which a load
// rewrites. A resident engine has no cache and pays one nil check.
// CacheSim runs the same bookkeeping over a query log without a device.
// docs/gpu-cache.md measures it.
//
// Decisions. Kernel parameters are 8-byte values (cu copies 8 bytes per
// argument). Host-to-device copies read Go memory (or the index's mapped
// files) directly: the index is uploaded once; only the list cache's
// copies, on the query path, come from page-locked memory.
package gpu
