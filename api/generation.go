package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/lru"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// AutoFunc builds the engine that answers engine=auto over a newly loaded
// index, given its CPU engine and its GPU engines: none when the GPU
// could not start, one, or, for a sharded collection with more of
// gpu.devices than shards, one per gang of devices holding every shard
// (schedule.OpenShardedGPUs), each a processor of its own. It is the hook
// for the CPU/GPU scheduler.
type AutoFunc func(ix *index.Index, cpu query.Engine, gpus []query.Engine) query.Engine

// generation is one served index with its engines and result cache. It is
// reference counted: the server holds one reference while it is current,
// and each request holds one while it runs; the last release closes it.
type generation struct {
	dir string // the directory served: an index's or a sharded collection's
	// parts are the indexes served (parts.go): one, or a sharded
	// collection's shards in docid order; first is each one's first docid
	// in the answers (its FirstDoc; 0 for an index that is not a shard).
	parts []*index.Index
	first []uint32
	ix    *index.Index // parts[0]: what the schedulers price queries on and guard with
	// collection is the identity of the sharded collection whose
	// directory is served; empty for an index's, a shard's included.
	collection string
	loaded     time.Time
	opts       query.Options // what the engines are opened with
	cpu        query.Engine
	auto       query.Engine // nil: engine=auto is the CPU engine
	gpu        query.Engine // nil when gpuErr is set
	gpuErr     error
	// replicas are the GPU gangs after gpu's when a sharded collection
	// has more of gpu.devices than shards: engine=auto's scheduler runs
	// them beside gpu, engine=gpu runs gpu's gang.
	replicas []query.Engine
	lazy     map[string]*lazyEngine // the other registered engines
	cache    *resultCache
	refs     atomic.Int64
	// damage is set by the first search that found the files under the
	// index changed on disk (index.ErrCorrupt: a fault reading a file
	// that shrank, or a block that no longer decodes); every later search
	// fails with it without reading them. It is never cleared: a reload
	// replaces the generation.
	damage atomic.Pointer[error]
	// healAt and healWait pace the server's reloads of a damaged
	// generation (s.reloadMu held): none starts before healAt, and after
	// a failed one the next waits healWait, doubled each time.
	healAt   time.Time
	healWait time.Duration
}

// lazyEngine is a registered engine made on first use.
type lazyEngine struct {
	once sync.Once
	eng  query.Engine
	err  error
}

// engineOptions are the options the server opens engines with: the
// bitmap cache bounded by server.bitmap_cache_mb, the GPU engine on the
// first of gpu.devices, a sharded collection's shards on each of them in
// turn.
func engineOptions(cfg config.Config) query.Options {
	o := query.Options{CacheBytes: cfg.Server.BitmapCacheMB << 20,
		GPU: query.GPUOptions{MemoryBudgetMB: cfg.GPU.MemoryBudgetMB, Wait: cfg.GPU.Wait, CachePolicy: cfg.GPU.CachePolicy,
			CacheMB: cfg.GPU.CacheMB, LongListKB: cfg.GPU.LongListKB, Devices: cfg.GPU.Devices}}
	if len(cfg.GPU.Devices) > 0 {
		o.GPU.Device = cfg.GPU.Devices[0]
	}
	return o
}

// openGeneration opens and checks the index in dir and makes its engines.
// The GPU engine is the one registered as "gpu" (the program links it, as
// gpusearch serve does by importing query/gpuengine); without one,
// engine=gpu answers 503 like a build without CUDA.
func openGeneration(dir string, cfg config.Config, auto AutoFunc) (*generation, error) {
	mem, err := index.ParseMemory(cfg.Server.IndexMemory)
	if err != nil {
		return nil, err
	}
	parts, man, err := openParts(dir, mem)
	if err != nil {
		return nil, err
	}
	ix := parts[0]
	opts := engineOptions(cfg)
	g := &generation{dir: dir, parts: parts, first: firstDocs(parts), ix: ix, loaded: time.Now(), opts: opts,
		lazy: map[string]*lazyEngine{}, cache: lru.New[cached](cfg.Server.CacheEntries)}
	if man != nil {
		g.collection = man.Collection
	}
	if g.cpu, err = g.openEngine("cpu", opts); err != nil {
		g.closeParts()
		return nil, err
	}
	for _, name := range query.Engines() {
		if name != "cpu" && name != "gpu" {
			g.lazy[name] = &lazyEngine{}
		}
	}
	if _, err := query.Lookup("gpu"); err != nil {
		g.gpuErr = fmt.Errorf("%w: this program has no GPU engine", query.ErrNoGPU)
	} else {
		g.openGPUs(opts)
	}
	if auto != nil {
		var gpus []query.Engine
		if g.gpu != nil {
			gpus = append([]query.Engine{g.gpu}, g.replicas...)
		}
		g.auto = auto(ix, g.cpu, gpus)
	}
	g.gpu = batchGPU(ix, g.gpu, cfg.GPU) // after auto, whose scheduler batches for itself
	g.refs.Store(1)
	return g, nil
}

// openGPUs opens the GPU engines. Over an index, one on each of
// o.GPU.Devices, each holding the whole index (schedule.OpenGPUs); over a
// sharded collection's shards, shard i on device i modulo the devices,
// and with at least twice as many devices as shards, in gangs of one
// device per shard (schedule.OpenShardedGPUs). The first engine is gpu,
// the others replicas that engine=auto's scheduler runs beside it. A
// device or gang that fails to open is left out; gpuErr is the error
// when none opens.
func (g *generation) openGPUs(o query.Options) {
	var gs schedule.GPUs
	var err error
	_, sharded := g.ix.Shard()
	switch {
	case sharded && len(o.GPU.Devices) >= 2*len(g.parts):
		gs, err = schedule.OpenShardedGPUs(g.parts, "gpu", o, o.GPU.Devices)
	case !sharded && len(o.GPU.Devices) > 1:
		gs, err = schedule.OpenGPUs(g.ix, o, o.GPU.Devices)
	default:
		g.gpu, g.gpuErr = g.openEngine("gpu", o)
		return
	}
	if len(gs) == 0 {
		g.gpuErr = err
		return
	}
	g.gpu, g.replicas = gs[0], gs[1:]
}

// search runs eng on q under the index's Guard, so that a fault reading
// a file that shrank on disk is an error, not the end of the process. An
// error about the index's files (index.ErrCorrupt) marks the generation
// damaged; once it is, searches fail with the first such error.
func (g *generation) search(ctx context.Context, eng query.Engine, q query.Query) (query.Result, error) {
	if err := g.damage.Load(); err != nil {
		return query.Result{}, *err
	}
	var res query.Result
	err := g.ix.Guard(func() (err error) {
		res, err = eng.Search(ctx, q)
		return err
	})
	if errors.Is(err, index.ErrCorrupt) {
		g.damage.CompareAndSwap(nil, &err)
	}
	return res, err
}

// The pace of the server's reloads of a damaged index: the first at
// once, then, while they fail (the files on disk are still being
// copied, or damaged), after minHealWait, doubling up to maxHealWait.
const (
	minHealWait = 250 * time.Millisecond
	maxHealWait = time.Minute
)

// damaged answers a search that found the served index's files changed on
// disk (err wraps index.ErrCorrupt). If the generation served is damaged,
// the server reloads it from disk, unless a reload is running or the last
// one failed too recently (the search that reloads waits for it); the
// search answers 503 either way, saying whether a sound index is served
// again.
func (s *Server) damaged(err error) error {
	const changed = "the served index changed on disk"
	healed, failed := s.heal()
	switch {
	case healed:
		return errorf(http.StatusServiceUnavailable, "%s (%v); it was reloaded from disk: retry", changed, err)
	case failed:
		return errorf(http.StatusServiceUnavailable, "%s (%v); reloading it failed: it answers 503 until the index on disk opens (tried again automatically, or POST /admin/reload)", changed, err)
	}
	return errorf(http.StatusServiceUnavailable, "%s (%v); it is being reloaded from disk: retry", changed, err)
}

// heal reloads the served generation from its directory if it is
// damaged, no reload is running and its pace allows. It reports whether a
// sound generation is served now, and whether the last reload of the
// damaged one failed.
func (s *Server) heal() (healed, failed bool) {
	if !s.reloadMu.TryLock() { // a reload is running: it replaces the generation
		return false, false
	}
	defer s.reloadMu.Unlock()
	g := s.cur.Load()
	if g.damage.Load() == nil {
		return true, false
	}
	now := time.Now()
	if now.Before(g.healAt) {
		return false, true
	}
	s.log.Warn("the served index changed on disk; reloading it", "dir", g.dir, "err", *g.damage.Load())
	if _, err := s.reload(g.dir); err != nil {
		g.healWait = min(max(2*g.healWait, minHealWait), maxHealWait)
		g.healAt = now.Add(g.healWait)
		s.log.Warn("the damaged index stays served, answering 503", "dir", g.dir, "err", err, "next_try", g.healWait)
		return false, true
	}
	return true, false
}

// tryAcquire takes a reference unless the generation is already closing.
func (g *generation) tryAcquire() bool {
	for {
		n := g.refs.Load()
		if n <= 0 {
			return false
		}
		if g.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release drops a reference; the last one closes the engines and the index.
func (g *generation) release() error {
	if g.refs.Add(-1) != 0 {
		return nil
	}
	var errs []error
	for _, e := range append([]query.Engine{g.gpu, g.cpu, g.auto}, g.replicas...) {
		if c, ok := e.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	for _, l := range g.lazy {
		if c, ok := l.eng.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	errs = append(errs, g.closeParts())
	return errors.Join(errs...)
}

// engine resolves a request's engine name to the engine that answers and
// its name: an unknown name is a 400, an engine that cannot be made a 503.
func (g *generation) engine(name string) (query.Engine, string, error) {
	switch name {
	case "cpu":
		return g.cpu, "cpu", nil
	case "auto":
		if g.auto != nil {
			return g.auto, "auto", nil
		}
		return g.cpu, "cpu", nil
	case "gpu":
		if g.gpuErr != nil {
			return nil, "", g.gpuErr
		}
		return g.gpu, "gpu", nil
	}
	l, ok := g.lazy[name]
	if !ok {
		return nil, "", badParam("engine %q: want one of %s", name, engineChoices())
	}
	l.once.Do(func() {
		if l.eng, l.err = g.openEngine(name, g.opts); l.err != nil {
			l.err = errorf(http.StatusServiceUnavailable, "engine %s unavailable: %v", name, l.err)
		}
	})
	return l.eng, name, l.err
}

// engineChoices lists the engine names a request may use: the registered
// engines, auto, and gpu (503 when the program has no GPU engine).
func engineChoices() string {
	names := append(query.Engines(), "auto")
	if !slices.Contains(names, "gpu") {
		names = append(names, "gpu")
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
