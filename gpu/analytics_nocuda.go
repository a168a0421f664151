//go:build !cuda

package gpu

import (
	"context"

	"github.com/gpusearch/gpusearch/analytics"
)

// AnalyticsCorpus is a compressed corpus resident on a device. This build
// has no CUDA support.
type AnalyticsCorpus struct{}

// UploadCorpus fails with ErrNoCUDA.
func (d *Device) UploadCorpus(c *analytics.Corpus) (*AnalyticsCorpus, error) { return nil, ErrNoCUDA }

// UploadText fails with ErrNoCUDA.
func (d *Device) UploadText(c *analytics.Corpus) (*AnalyticsCorpus, error) { return nil, ErrNoCUDA }

// Prepare fails with ErrNoCUDA.
func (a *AnalyticsCorpus) Prepare(task analytics.Task, opts analytics.Options) error {
	return ErrNoCUDA
}

// Run fails with ErrNoCUDA.
func (a *AnalyticsCorpus) Run(ctx context.Context, task analytics.Task, opts analytics.Options) (*analytics.Result, error) {
	return nil, ErrNoCUDA
}

// Free does nothing.
func (a *AnalyticsCorpus) Free() error { return nil }
