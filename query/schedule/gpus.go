package schedule

import (
	"errors"
	"fmt"
	"io"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// GPUs are GPU engines over one index, one per device: what a scheduler's
// Config.GPUs runs on.
type GPUs []query.Engine

// OpenGPUs opens the engine registered as "gpu" on each device ordinal of
// devices, with o's other options. A device that fails is left out and its
// error joined to the others'; a failure that wraps query.ErrNoGPU (no
// CUDA build, or no GPU engine linked) stops at the first device, since
// every other would fail the same way.
func OpenGPUs(ix *index.Index, o query.Options, devices []int) (GPUs, error) {
	var gs GPUs
	var errs []error
	for _, d := range devices {
		o.GPU.Device = d
		e, err := query.Open(ix, "gpu", o)
		if err != nil {
			errs = append(errs, fmt.Errorf("device %d: %w", d, err))
			if errors.Is(err, query.ErrNoGPU) {
				break
			}
			continue
		}
		gs = append(gs, e)
	}
	return gs, errors.Join(errs...)
}

// Close closes every engine, freeing its device.
func (gs GPUs) Close() error {
	var errs []error
	for _, g := range gs {
		if c, ok := g.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// Usage sums the engines' device usage (query.DeviceEngine).
func (gs GPUs) Usage() query.DeviceUsage {
	var sum query.DeviceUsage
	for _, g := range gs {
		if d, ok := g.(query.DeviceEngine); ok {
			sum = sum.Add(d.DeviceUsage())
		}
	}
	return sum
}
