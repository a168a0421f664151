package gpu

import "github.com/gpusearch/gpusearch/internal/cuda"

// ErrNoCUDA is returned by every entry point of a build without the cuda
// tag. It wraps query.ErrNoGPU.
var ErrNoCUDA = cuda.ErrNoCUDA

// ErrNoDevice is returned when the CUDA driver finds no usable device.
var ErrNoDevice = cuda.ErrNoDevice

// ErrOutOfMemory is returned when an allocation would pass the device's
// memory budget or the device has no memory left.
var ErrOutOfMemory = cuda.ErrOutOfMemory

// ErrBadPTX is returned when the kernels cannot be loaded: no PTX, PTX the
// driver rejects, or a kernel missing from it.
var ErrBadPTX = cuda.ErrBadPTX

// ErrClosed is returned by a Device or an Engine after Close.
var ErrClosed = cuda.ErrClosed
