package gpu

import "errors"

// ErrNoCUDA is returned by every entry point of a build without the cuda tag.
var ErrNoCUDA = errors.New("gpu: built without CUDA support (build with -tags cuda)")

// ErrNoDevice is returned when the CUDA driver finds no usable device.
var ErrNoDevice = errors.New("gpu: no CUDA device")
