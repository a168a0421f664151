package api

import (
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
	opts   query.Options // what the engines are opened with
	cpu    query.Engine
	auto   query.Engine // nil: engine=auto is the CPU engine
	gpu    query.Engine // nil when gpuErr is set
	gpuErr error
	lazy   map[string]*lazyEngine // the other registered engines
	cache  *lru
	refs   atomic.Int64
}

// lazyEngine is a registered engine made on first use.
type lazyEngine struct {
	once sync.Once
	eng  query.Engine
	err  error
}

// engineOptions are the options the server opens engines with: the
// bitmap cache bounded by server.bitmap_cache_mb, the GPU engine on the
// first of gpu.devices.
func engineOptions(cfg config.Config) query.Options {
	o := query.Options{CacheBytes: cfg.Server.BitmapCacheMB << 20,
		GPU: query.GPUOptions{MemoryBudgetMB: cfg.GPU.MemoryBudgetMB, Wait: cfg.GPU.Wait}}
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
	ix, err := index.Open(dir)
	if err != nil {
		return nil, err
	}
	opts := engineOptions(cfg)
	cpu, err := query.Open(ix, "cpu", opts)
	if err != nil {
		ix.Close()
		return nil, err
	}
	g := &generation{ix: ix, loaded: time.Now(), opts: opts, cpu: cpu, lazy: map[string]*lazyEngine{},
		cache: newLRU(cfg.Server.CacheEntries)}
	for _, name := range query.Engines() {
		if name != "cpu" && name != "gpu" {
			g.lazy[name] = &lazyEngine{}
		}
	}
	if _, err := query.Lookup("gpu"); err != nil {
		g.gpuErr = fmt.Errorf("%w: this program has no GPU engine", query.ErrNoGPU)
	} else {
		g.gpu, g.gpuErr = query.Open(ix, "gpu", opts)
	}
	if auto != nil {
		g.auto = auto(ix, cpu, g.gpu)
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
	for _, e := range []query.Engine{g.gpu, g.cpu, g.auto} {
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
		return nil, "", badParam("engine %q: want one of %s", name, engineChoices())
	}
	l.once.Do(func() {
		if l.eng, l.err = query.Open(g.ix, name, g.opts); l.err != nil {
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
