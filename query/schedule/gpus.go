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

// OpenShardedGPUs opens the GPU engine registered as name over the
// shards of a sharded collection on devices, in gangs: a gang is one
// query.Sharded engine whose shards each have a device of their own
// (shard i of gang g on devices[g*S+i], S shards), and with fewer devices
// than shards the one gang places shard i on devices[i % len(devices)].
// Every query needs every shard, so a gang, not a GPU, is a processor of
// the scheduler: its shards' searches run at once on its devices, and the
// len(devices)/S gangs are replicas of the collection that the scheduler
// runs side by side, each with its workers and queue. Devices past the
// last whole gang are left unused. Errors are OpenGPUs's, per gang.
func OpenShardedGPUs(shards []*index.Index, name string, o query.Options, devices []int) (GPUs, error) {
	if len(devices) == 0 || len(shards) == 0 {
		return nil, nil
	}
	gangs := [][]int{devices}
	if s := len(shards); len(devices) >= s {
		gangs = nil
		for g := 0; g+s <= len(devices); g += s {
			gangs = append(gangs, devices[g:g+s])
		}
	}
	var gs GPUs
	var errs []error
	for _, gang := range gangs {
		o.GPU.Devices = gang
		e, err := query.OpenSharded(shards, name, o)
		if err != nil {
			errs = append(errs, fmt.Errorf("devices %v: %w", gang, err))
			if errors.Is(err, query.ErrNoGPU) {
				break
			}
			continue
		}
		gs = append(gs, e)
	}
	return gs, errors.Join(errs...)
}
