//go:build cuda

package gpu

import (
	"context"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// Options configure the GPU engine.
type Options struct {
	Device         int   // CUDA device ordinal
	MemoryBudgetMB int64 // device memory the index may use; 0 = all free memory
}

// Engine answers queries on a GPU. Query processing on the GPU is not
// built yet: this twin of engine_nocuda.go keeps the cuda build compiling,
// and NewEngine fails with ErrNoEngine.
type Engine struct{}

// NewEngine fails with ErrNoEngine until the GPU query engine exists.
func NewEngine(ix *index.Index, opts Options) (*Engine, error) { return nil, ErrNoEngine }

// Search implements query.Engine.
func (e *Engine) Search(ctx context.Context, q query.Query) (query.Result, error) {
	return query.Result{}, ErrNoEngine
}

// Close releases the device.
func (e *Engine) Close() error { return nil }
