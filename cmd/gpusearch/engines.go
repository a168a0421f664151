package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	// Registers the GPU engine as "gpu", for search, serve and bench.
	_ "github.com/gpusearch/gpusearch/query/gpuengine"
)

// engineOptions are the options the command line opens engines with: the
// default bitmap cache, and the GPU section of the config but for the
// device, which each GPU engine sets.
func engineOptions(cfg config.GPU) query.Options {
	o := query.DefaultOptions
	o.GPU = query.GPUOptions{MemoryBudgetMB: cfg.MemoryBudgetMB, Wait: cfg.Wait}
	return o
}

// openEngine opens an engine of the registry for the command line, with
// engineOptions, a GPU engine on the first configured device. "auto" is
// the CPU engine (the scheduler belongs to the server's worker pool). The
// returned func releases the engine.
func openEngine(ix *index.Index, cfg config.GPU, name string) (query.Engine, func(), error) {
	if name == "auto" {
		name = "cpu"
	}
	d, err := query.Lookup(name)
	if err != nil {
		return nil, nil, usageError{err}
	}
	o := engineOptions(cfg)
	if d.Needs.GPU {
		if len(cfg.Devices) == 0 {
			return nil, nil, fmt.Errorf("engine %s: no GPU devices configured", name)
		}
		o.GPU.Device = cfg.Devices[0]
	}
	e, err := query.Open(ix, name, o)
	if err != nil {
		return nil, nil, fmt.Errorf("engine %s: %w", name, err)
	}
	return e, func() {
		if c, ok := e.(io.Closer); ok {
			if err := c.Close(); err != nil {
				fmt.Fprintln(os.Stderr, "gpusearch:", err)
			}
		}
	}, nil
}
