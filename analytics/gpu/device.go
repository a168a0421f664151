package gpu

import (
	"embed"
	"errors"

	"github.com/gpusearch/gpusearch/internal/cuda"
)

// kernelFS holds kernels/analytics.ptx, which make ptx compiles from
// kernels/analytics.cu (the source is not embedded).
//
//go:embed kernels/*.ptx
var kernelFS embed.FS

// DeviceOptions choose a GPU, bound its memory use and say how the host
// waits for it (the fields are documented in internal/cuda.Options).
type DeviceOptions = cuda.Options

// Device is one GPU with its own CUDA context, for the analytics tasks.
// It is safe for concurrent use; a Corpus on it is not.
type Device struct {
	c *cuda.Device
}

// OpenDevice creates a context on the chosen GPU. Errors wrap
// gpu.ErrNoDevice, and ErrNoCUDA in a build without the cuda tag.
func OpenDevice(opts DeviceOptions) (*Device, error) {
	c, err := cuda.Open(opts)
	if err != nil {
		return nil, err
	}
	return &Device{c: c}, nil
}

// Close destroys the context, which frees all of the device's memory.
func (d *Device) Close() error { return d.c.Close() }

// ErrNoCUDA is returned by OpenDevice in a build without the cuda tag. It
// wraps query.ErrNoGPU.
var ErrNoCUDA = cuda.ErrNoCUDA

// ErrAnalyticsTask is returned for a task or traversal the GPU analytics
// engine does not run: it runs wordcount and sort top-down, invindex,
// termvector, rankedinv and seqcount bottom-up, seqcount for sequences of
// at most MaxGPUSeqLen words that pack into 64-bit keys.
var ErrAnalyticsTask = errors.New("gpu: not supported by the GPU analytics engine")

// MaxGPUSeqLen is the longest sequence the GPU's seqcount counts (the
// window its kernels keep, MAX_SEQ in kernels/analytics.cu).
const MaxGPUSeqLen = 16
