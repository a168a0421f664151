package api

import (
	"errors"
	"io"

	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// batchDevice is a GPU engine that answers batches and accounts for its
// runs: package gpu's.
type batchDevice interface {
	query.BatchEngine
	query.DeviceEngine
}

// gpuBatcher is engine=gpu served through a micro-batching scheduler
// (schedule.NewBatcher): requests that arrive within gpu.window of each
// other, or while the GPU is busy, run on it as one batch, instead of a
// launch sequence and a synchronization each.
type gpuBatcher struct {
	*schedule.Scheduler
	gpu batchDevice
}

// batchGPU wraps a GPU engine that answers batches in a gpuBatcher with
// the gpu section's batch, workers and window; any other engine (nil
// included) is returned as it is.
func batchGPU(ix *index.Index, gpu query.Engine, cfg config.GPU) query.Engine {
	bd, ok := gpu.(batchDevice)
	if !ok {
		return gpu
	}
	s, err := schedule.NewBatcher(ix, bd, cfg.Batch, cfg.Workers, cfg.Window)
	if err != nil { // only a missing engine fails, and bd is there
		return gpu
	}
	return &gpuBatcher{Scheduler: s, gpu: bd}
}

// DeviceUsage implements query.DeviceEngine.
func (b *gpuBatcher) DeviceUsage() query.DeviceUsage { return b.gpu.DeviceUsage() }

// Close stops the workers once their queries have run, then closes the
// GPU engine.
func (b *gpuBatcher) Close() error {
	err := b.Scheduler.Close()
	if c, ok := b.gpu.(io.Closer); ok {
		err = errors.Join(err, c.Close())
	}
	return err
}
