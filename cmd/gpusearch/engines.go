package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// openGPUs opens one GPU engine per configured device. A build without
// CUDA, or a machine without a GPU, gives none and the reason.
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

// openEngine resolves an engine name for the command line: "gpu" opens the
// first configured GPU, "auto" is the CPU engine (the scheduler belongs to
// the server's worker pool), and any other name is a CPU algorithm. The
// returned func releases what was opened.
func openEngine(ix *index.Index, cfg config.GPU, name string) (query.Engine, func(), error) {
	switch name {
	case "gpu":
		gpus, err := openGPUs(ix, cfg)
		if len(gpus) == 0 {
			if err == nil {
				err = errors.New("no GPU devices configured")
			}
			return nil, nil, fmt.Errorf("engine gpu: %w", err)
		}
		return gpus[0], func() { closeGPUs(gpus) }, nil
	case "auto":
		name = "cpu"
	}
	e, err := query.New(ix, name)
	if err != nil {
		return nil, nil, usageError{err}
	}
	return e, func() {}, nil
}
