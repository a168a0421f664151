package gpu

import "errors"

// ErrNoCUDA is returned by every entry point of a build without the cuda tag.
var ErrNoCUDA = errors.New("gpu: built without CUDA support (build with -tags cuda)")

// ErrNoDevice is returned when the CUDA driver finds no usable device.
var ErrNoDevice = errors.New("gpu: no CUDA device")

// ErrOutOfMemory is returned when an allocation would pass the device's
// memory budget or the device has no memory left.
var ErrOutOfMemory = errors.New("gpu: out of device memory")

// ErrBadPTX is returned when the kernels cannot be loaded: no PTX, PTX the
// driver rejects, or a kernel missing from it.
var ErrBadPTX = errors.New("gpu: cannot load kernels")

// ErrClosed is returned by a Device after Close.
var ErrClosed = errors.New("gpu: device closed")

// ErrAnalyticsTask is returned for a task or traversal the GPU analytics
// engine does not run: it runs wordcount and sort top-down, invindex,
// termvector, rankedinv and seqcount bottom-up, seqcount for sequences of
// at most MaxGPUSeqLen words that pack into 64-bit keys.
var ErrAnalyticsTask = errors.New("gpu: not supported by the GPU analytics engine")

// MaxGPUSeqLen is the longest sequence the GPU's seqcount counts (the
// window its kernels keep, MAX_SEQ in kernels/analytics.cu).
const MaxGPUSeqLen = 16
