package gpu

import (
	"context"
	"errors"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// Options configure the GPU engine.
type Options struct {
	Device         int   // CUDA device ordinal
	MemoryBudgetMB int64 // device memory the engine may use; 0 = all free memory
	// TopK is a single OR query's top-k method: TopKRadix (default) or
	// TopKTree.
	TopK string
	// Wait is how the host waits for the device (DeviceOptions.Wait).
	Wait string
	// NoGraphs queues every launch on its own instead of each run's
	// launches between copies as one CUDA graph (for comparison).
	NoGraphs bool
	// CachePolicy is the list cache's policy, CacheLRU (default) or
	// CacheLFU. The engine has a list cache when the index and a scratch
	// reserve of a quarter of the budget do not fit MemoryBudgetMB, or
	// when CacheMB is positive: short lists stay resident, long ones (at
	// least LongListBytes, default DefaultLongListBytes) are copied to
	// the cache when a query needs them (see docs/gpu-cache.md).
	CachePolicy string
	// CacheMB, when positive, is the list cache's size, whatever the
	// budget; 0 sizes it from the budget, when needed.
	CacheMB int64
	// LongListBytes is the size from which a list is long (cached); 0:
	// DefaultLongListBytes.
	LongListBytes int64
}

// Engine answers queries on a GPU: the index stays resident in device
// memory, and each query runs as one sequence of kernel launches (see the
// package documentation). It implements query.Engine and
// query.BatchEngine; concurrent calls overlap on the host and, each on a
// stream of its own, on the device.
type Engine struct {
	dev *Device
	be  *deviceBackend
	q   *qengine
}

// NewEngine opens the GPU, loads the kernels and uploads ix. A column
// whose codec has no GPU decoder is re-encoded at upload with the GPU codec
// of the same block size (gpu-bp128 for every CPU codec). When an open
// engine holds ix's columns on the same device with the same options (the
// same segment of the same index directory, unchanged: an engine of the
// generation before a reload), the new engine shares them and its device,
// uploading only ix's norms. Errors wrap ErrNoDevice, ErrBadPTX,
// ErrOutOfMemory or ErrFormat, and ErrNoCUDA in a build without the cuda
// tag.
func NewEngine(ix *index.Index, opts Options) (*Engine, error) {
	topk, err := checkTopK(opts.TopK)
	if err != nil {
		return nil, err
	}
	policy, err := checkPolicy(opts.CachePolicy)
	if err != nil {
		return nil, err
	}
	cols, err := acquireColumns(residentKey(ix, opts), func() (*columns, error) {
		d, be, err := openBackend(DeviceOptions{Ordinal: opts.Device, MemoryBudgetMB: opts.MemoryBudgetMB, Wait: opts.Wait})
		if err != nil {
			return nil, err
		}
		be.graphs = !opts.NoGraphs
		co := cacheOptions{policy: policy, bytes: opts.CacheMB << 20, budget: d.Info().BudgetBytes - d.Used(),
			longMin: opts.LongListBytes}
		c, err := uploadColumnsCache(ix, be, co)
		if err != nil {
			return nil, errors.Join(err, be.close(), d.Close())
		}
		c.dev, c.dbe = d, be
		return c, nil
	})
	if err != nil {
		return nil, err
	}
	dev, be := cols.dev, cols.dbe
	q, err := newQEngineOn(ix, cols)
	if err != nil {
		return nil, err
	}
	q.topk = topk
	return &Engine{dev: dev, be: be, q: q}, nil
}

// Search implements query.Engine.
func (e *Engine) Search(ctx context.Context, q query.Query) (query.Result, error) {
	rs, _, err := e.q.search(ctx, []query.Query{q}, false)
	if err != nil {
		return query.Result{}, err
	}
	return rs[0], nil
}

// SearchBatch implements query.BatchEngine: the queries' launch sequences
// go back to back, with one synchronization and one copy of the results
// per wave (AND and OR passes, then the OR passes of AND+OR queries that
// found fewer than k hits). Stats.Took is the whole batch's time.
func (e *Engine) SearchBatch(ctx context.Context, qs []query.Query) ([]query.Result, error) {
	rs, _, err := e.q.search(ctx, qs, false)
	return rs, err
}

// Profile answers q like Search and measures the device time of each
// phase with CUDA events.
func (e *Engine) Profile(ctx context.Context, q query.Query) (query.Result, Phases, error) {
	rs, ph, err := e.q.search(ctx, []query.Query{q}, true)
	if err != nil {
		return query.Result{}, ph, err
	}
	return rs[0], ph, nil
}

// Device describes the engine's GPU.
func (e *Engine) Device() DeviceInfo { return e.dev.Info() }

// Usage reports the engine's runs on the device so far, and its list
// cache's accesses.
func (e *Engine) Usage() DeviceUsage {
	u := e.be.deviceUsage()
	if st, ok := e.CacheStats(); ok {
		u.ListCache = query.ListCacheUsage{On: true, Hits: st.Hits, Misses: st.Misses, StreamedBytes: st.StreamedBytes,
			Evictions: st.Evictions}
	}
	return u
}

// CacheStats reports the list cache, and false when the engine holds the
// whole index resident.
func (e *Engine) CacheStats() (CacheStats, bool) {
	if e.q.qc == nil {
		return CacheStats{}, false
	}
	return e.q.qc.lc.snapshot(), true
}

// Reencoded reports whether the index's columns were re-encoded at upload
// because their codec has no GPU decoder.
func (e *Engine) Reencoded() bool { return e.q.reencoded }

// GraphsBroken is why the driver refused the engine's CUDA graphs (it then
// launches one kernel at a time), or nil.
func (e *Engine) GraphsBroken() error { return e.be.graphsBroken() }

// Close frees the engine's device memory, and the columns and the device
// when no other engine shares them.
func (e *Engine) Close() error { return e.q.release() }

var _ query.BatchEngine = (*Engine)(nil)
