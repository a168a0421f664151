package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	// Registers the GPU engine as "gpu", for search, serve and bench.
	_ "github.com/gpusearch/gpusearch/query/gpuengine"
)

// openEngine opens an engine of the registry for the command line: the
// default options, the GPU section of the config, a GPU engine on the
// first configured device. "auto" is the CPU engine (the scheduler belongs
// to the server's worker pool). The returned func releases the engine.
func openEngine(ix *index.Index, cfg config.GPU, name string) (query.Engine, func(), error) {
	if name == "auto" {
		name = "cpu"
	}
	d, err := query.Lookup(name)
	if err != nil {
		return nil, nil, usageError{err}
	}
	o := query.DefaultOptions
	o.GPU = query.GPUOptions{MemoryBudgetMB: cfg.MemoryBudgetMB, Wait: cfg.Wait}
	if d.Needs.GPU {
		if len(cfg.Devices) == 0 {
			return nil, nil, fmt.Errorf("engine %s: no GPU devices configured", name)
		}
		o.GPU.Device = cfg.Devices[0]
	}
	e, err := d.Open(ix, o)
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

// openGPUs opens one GPU engine per configured device, for the bench
// harnesses still in this package. A build without CUDA, or a machine
// without a GPU, gives none and the reason.
func openGPUs(ix *index.Index, cfg config.GPU) ([]*gpu.Engine, error) {
	var engines []*gpu.Engine
	var errs []error
	for _, d := range cfg.Devices {
		e, err := gpu.NewEngine(ix, gpu.Options{Device: d, MemoryBudgetMB: cfg.MemoryBudgetMB, Wait: cfg.Wait})
		if err != nil {
			errs = append(errs, fmt.Errorf("device %d: %w", d, err))
			if errors.Is(err, gpu.ErrNoCUDA) {
				break
			}
			continue
		}
		engines = append(engines, e)
	}
	return engines, errors.Join(errs...)
}

// asEngines converts GPU engines to the query.Engine interface.
func asEngines(gs []*gpu.Engine) []query.Engine {
	out := make([]query.Engine, len(gs))
	for i, g := range gs {
		out[i] = g
	}
	return out
}

func closeGPUs(gs []*gpu.Engine) {
	for _, g := range gs {
		if err := g.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "gpusearch:", err)
		}
	}
}
