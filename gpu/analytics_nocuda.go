//go:build !cuda

package gpu

import (
	"context"
	"errors"

	"github.com/gpusearch/gpusearch/analytics"
)

// ErrAnalyticsTask is returned for a task or traversal the GPU analytics
// engine does not run: it runs wordcount and sort top-down, invindex,
// termvector and rankedinv bottom-up, and not seqcount.
var ErrAnalyticsTask = errors.New("gpu: not supported by the GPU analytics engine")

// AnalyticsCorpus is a compressed corpus resident on a device. This build
// has no CUDA support.
type AnalyticsCorpus struct{}

// UploadCorpus fails with ErrNoCUDA.
func (d *Device) UploadCorpus(c *analytics.Corpus) (*AnalyticsCorpus, error) { return nil, ErrNoCUDA }

// Run fails with ErrNoCUDA.
func (a *AnalyticsCorpus) Run(ctx context.Context, task analytics.Task, opts analytics.Options) (*analytics.Result, error) {
	return nil, ErrNoCUDA
}

// Free does nothing.
func (a *AnalyticsCorpus) Free() error { return nil }
