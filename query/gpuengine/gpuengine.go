// Package gpuengine registers package gpu's query engine in package
// query's registry, under the name "gpu". Package query cannot import gpu
// (gpu imports query), so a program links the GPU engine by importing this
// package for its side effect, as it links a database/sql driver:
//
//	import _ "github.com/gpusearch/gpusearch/query/gpuengine"
package gpuengine

import (
	"errors"

	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

func init() {
	query.Register("gpu", query.Driver{Needs: query.Needs{GPU: true}, Open: open})
}

// open uploads ix to the GPU o.GPU places. Without a usable device it
// fails as a build without CUDA does, with an error that wraps
// query.ErrNoGPU (gpu.ErrNoCUDA wraps it already).
func open(ix *index.Index, o query.Options) (query.Engine, error) {
	e, err := gpu.NewEngine(ix, gpu.Options{Device: o.GPU.Device, MemoryBudgetMB: o.GPU.MemoryBudgetMB, Wait: o.GPU.Wait,
		CachePolicy: o.GPU.CachePolicy, CacheMB: o.GPU.CacheMB, LongListBytes: o.GPU.LongListKB << 10})
	if errors.Is(err, gpu.ErrNoDevice) {
		return nil, noGPU{err}
	}
	if err != nil {
		return nil, err
	}
	return engine{e}, nil
}

// engine is package gpu's engine, reporting its device usage in package
// query's terms.
type engine struct{ *gpu.Engine }

// DeviceUsage implements query.DeviceEngine.
func (e engine) DeviceUsage() query.DeviceUsage { return query.DeviceUsage(e.Usage()) }

// noGPU is a missing device as query.ErrNoGPU, keeping its message.
type noGPU struct{ error }

func (e noGPU) Unwrap() []error { return []error{e.error, query.ErrNoGPU} }

var _ query.DeviceEngine = engine{}
