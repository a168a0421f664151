package api

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// AutoFunc builds the engine that answers engine=auto over a newly loaded
// index, given its CPU engine and its GPU engine (nil when the GPU could
// not start). It is the hook for the CPU/GPU scheduler.
type AutoFunc func(ix *index.Index, cpu, gpu query.Engine) query.Engine

// generation is one served index with its engines and result cache. It is
// reference counted: the server holds one reference while it is current,
// and each request holds one while it runs; the last release closes it.
type generation struct {
	ix     *index.Index
	loaded time.Time
	cpu    query.Engine
	auto   query.Engine // nil: engine=auto is the CPU engine
	gpu    *gpu.Engine  // nil when gpuErr is set
	gpuErr error
	lazy   map[string]*lazyEngine // bitmap and the named CPU algorithms
	bitmap int64                  // the bitmap engine's cache bound in bytes
	cache  *lru
	refs   atomic.Int64
}

// lazyEngine is an engine made on first use: the bitmap baseline, bounded
// by server.bitmap_cache_mb, or a CPU algorithm from query.New.
type lazyEngine struct {
	once sync.Once
	eng  query.Engine
	err  error
}

// openGeneration opens and checks the index in dir and makes its engines.
func openGeneration(dir string, cfg config.Config, auto AutoFunc) (*generation, error) {
	ix, err := index.Open(dir)
	if err != nil {
		return nil, err
	}
	cpu, err := query.New(ix, "cpu")
	if err != nil {
		ix.Close()
		return nil, err
	}
	g := &generation{ix: ix, loaded: time.Now(), cpu: cpu, lazy: map[string]*lazyEngine{},
		bitmap: cfg.Server.BitmapCacheMB << 20, cache: newLRU(cfg.Server.CacheEntries)}
	for _, name := range append([]string{"bitmap"}, query.Algorithms...) {
		g.lazy[name] = &lazyEngine{}
	}
	opts := gpu.Options{MemoryBudgetMB: cfg.GPU.MemoryBudgetMB, Wait: cfg.GPU.Wait}
	if len(cfg.GPU.Devices) > 0 {
		opts.Device = cfg.GPU.Devices[0]
	}
	g.gpu, g.gpuErr = gpu.NewEngine(ix, opts)
	if auto != nil {
		var ge query.Engine
		if g.gpuErr == nil {
			ge = g.gpu
		}
		g.auto = auto(ix, cpu, ge)
	}
	g.refs.Store(1)
	return g, nil
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
	if g.gpu != nil {
		errs = append(errs, g.gpu.Close())
	}
	for _, e := range []query.Engine{g.cpu, g.auto} {
		if c, ok := e.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	for _, l := range g.lazy {
		if c, ok := l.eng.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	errs = append(errs, g.ix.Close())
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
		return nil, "", badParam("engine %q: want %s", name, engineChoices())
	}
	l.once.Do(func() {
		if name == "bitmap" {
			l.eng = query.NewBitmap(g.ix, query.BitmapOptions{CacheBytes: g.bitmap})
			return
		}
		if l.eng, l.err = query.New(g.ix, name); l.err != nil {
			l.err = errorf(http.StatusServiceUnavailable, "engine %s unavailable: %v", name, l.err)
		}
	})
	return l.eng, name, l.err
}

// engineChoices lists the engine names a request may use.
func engineChoices() string {
	return fmt.Sprintf("cpu, gpu, auto, bitmap or one of %v", query.Algorithms)
}
