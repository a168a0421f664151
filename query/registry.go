package query

import "errors"

// ErrNoGPU reports that a GPU engine was asked for where no GPU or CUDA
// build is available. Packages that provide GPU engines wrap it, so callers
// test for it with errors.Is without importing them.
var ErrNoGPU = errors.New("no GPU available")
