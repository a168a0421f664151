//go:build !cuda

package gpu

import (
	"context"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// Options configure the GPU engine.
type Options struct {
	Device         int   // CUDA device ordinal
	MemoryBudgetMB int64 // device memory the engine may use; 0 = all free memory
	// TopK is a single OR query's top-k method: TopKRadix (default) or
	// TopKTree.
	TopK string
	// Wait is how the host waits for the device (DeviceOptions.Wait).
	Wait string
}

// Engine answers queries on a GPU. This build has no CUDA support.
type Engine struct{}

// NewEngine uploads ix to the GPU and returns an engine over it. Without
// the cuda build tag it always fails with ErrNoCUDA.
func NewEngine(ix *index.Index, opts Options) (*Engine, error) { return nil, ErrNoCUDA }

// Search implements query.Engine.
func (e *Engine) Search(ctx context.Context, q query.Query) (query.Result, error) {
	return query.Result{}, ErrNoCUDA
}

// SearchBatch implements query.BatchEngine.
func (e *Engine) SearchBatch(ctx context.Context, qs []query.Query) ([]query.Result, error) {
	return nil, ErrNoCUDA
}

// Profile answers q like Search and measures the device time of each phase.
func (e *Engine) Profile(ctx context.Context, q query.Query) (query.Result, Phases, error) {
	return query.Result{}, Phases{}, ErrNoCUDA
}

// Device describes the engine's GPU.
func (e *Engine) Device() DeviceInfo { return DeviceInfo{} }

// Usage reports the engine's runs on the device so far.
func (e *Engine) Usage() DeviceUsage { return DeviceUsage{} }

// Reencoded reports whether the index's columns were re-encoded at upload.
func (e *Engine) Reencoded() bool { return false }

// Close frees the device memory and the device.
func (e *Engine) Close() error { return nil }

var _ query.BatchEngine = (*Engine)(nil)
