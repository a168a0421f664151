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
		e, err := gpu.NewEngine(ix, gpu.Options{Device: d, MemoryBudgetMB: cfg.MemoryBudgetMB})
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
