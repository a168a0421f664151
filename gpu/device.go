package gpu

import (
	"github.com/gpusearch/gpusearch/internal/cuda"
	"github.com/gpusearch/gpusearch/query"
)

// DeviceOptions choose a GPU, bound its memory use and say how the host
// waits for it (the fields are documented in internal/cuda.Options).
type DeviceOptions = cuda.Options

// DeviceInfo describes an open device (internal/cuda.Info).
type DeviceInfo = cuda.Info

// Buffer is a block of device memory (internal/cuda.Buffer).
type Buffer = cuda.Buffer

// Device is one GPU with its own CUDA context and the decode kernels. It
// is safe for concurrent use: its calls are serialized (see the package
// documentation).
type Device struct {
	c      *cuda.Device
	decode *cuda.Module // kernels/decode.ptx
}

// OpenDevice creates a context on the chosen GPU, loads the decode
// kernels (see internal/cuda.PTXDirEnv) and returns the device. Errors
// wrap ErrNoDevice or ErrBadPTX, and ErrNoCUDA in a build without the cuda
// tag; an unknown wait mode is an error of its own.
func OpenDevice(opts DeviceOptions) (*Device, error) {
	c, err := cuda.Open(opts)
	if err != nil {
		return nil, err
	}
	m, err := c.Load(kernelFS, "decode", decodeKernels())
	if err != nil {
		c.Close()
		return nil, err
	}
	return &Device{c: c, decode: m}, nil
}

// Close destroys the context, which frees all of the device's memory. It
// waits for calls in flight.
func (d *Device) Close() error { return d.c.Close() }

// Info describes the device.
func (d *Device) Info() DeviceInfo { return d.c.Info() }

// PTXSource says where the decode kernels were loaded from.
func (d *Device) PTXSource() string { return d.decode.From() }

// Used is the number of bytes allocated on the device.
func (d *Device) Used() int64 { return d.c.Used() }

// Alloc allocates size bytes (rounded up to a multiple of 16) of device
// memory. It fails with an error wrapping ErrOutOfMemory past the budget or
// when the device is full.
func (d *Device) Alloc(size int64) (*Buffer, error) { return d.c.Alloc(size) }

// DecodeJob is one decode launch: Count blocks of Col, either the range
// starting at First or, when Sel is not nil, the block ids in Sel (Count
// uint32s), written to Out as rows of Col's block size.
type DecodeJob struct {
	Col    *Column
	First  int
	Count  int
	Sel    *Buffer
	Out    *Buffer
	Output Output
}

// Resident is an index uploaded to a device: its docid and frequency
// columns, and the skip table's last-docid and block-max columns.
type Resident struct {
	DocIDs, Freqs *Column
	LastDocIDs    *Buffer // uint32 per block
	BlockMax      *Buffer // float32 per block
}

// Free releases the resident index's device memory.
func (r *Resident) Free() error {
	var first error
	for _, f := range []func() error{r.DocIDs.Free, r.Freqs.Free, r.LastDocIDs.Free, r.BlockMax.Free} {
		if err := f(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// DeviceUsage accounts for a query engine's runs on its device
// (query.DeviceUsage): each run is one launch sequence of a batch or
// query pass, ending in the download of its results; Held is the host's
// time inside runs, Busy the device's from each run's first operation to
// the start of its last download (CUDA events), so Held - Busy is the
// host's share, and runs on different streams overlap, so both can
// exceed the wall time. ListCache counts the list cache, if any.
type DeviceUsage = query.DeviceUsage

// Column is an encoded column resident on a device.
type Column struct {
	codec                     string
	stem                      string
	blockSize, blocks, values int
	dataLen                   uint64
	data, offs, counts, bases *Buffer
}

// UploadColumn validates h and copies it to the device.
func (d *Device) UploadColumn(h *HostColumn) (*Column, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	c := &Column{codec: h.Codec, stem: kernels[h.Codec], blockSize: h.BlockSize, blocks: h.NumBlocks(),
		values: h.Values(), dataLen: uint64(len(h.Data))}
	err := c.upload(d, h)
	if err != nil {
		c.Free()
		return nil, err
	}
	return c, nil
}

func (c *Column) upload(d *Device, h *HostColumn) error {
	var err error
	// Slack past the data: the kernels stage whole 16-byte chunks, and one
	// more, around each block.
	if c.data, err = d.Alloc(int64(len(h.Data)) + 64); err != nil {
		return err
	}
	if err = c.data.WriteBytes(h.Data); err != nil {
		return err
	}
	if c.offs, err = d.Alloc(8 * int64(len(h.Offsets))); err != nil {
		return err
	}
	if err = c.offs.WriteUint64s(h.Offsets); err != nil {
		return err
	}
	if c.counts, err = d.Alloc(4 * int64(len(h.Counts))); err != nil {
		return err
	}
	if err = c.counts.WriteUint32s(h.Counts); err != nil {
		return err
	}
	if h.Bases != nil {
		if c.bases, err = d.Alloc(4 * int64(len(h.Bases))); err != nil {
			return err
		}
		err = c.bases.WriteUint32s(h.Bases)
	}
	return err
}

// Free releases the column's device memory; a nil column does nothing.
func (c *Column) Free() error {
	if c == nil {
		return nil
	}
	return cuda.FreeAll(c.data, c.offs, c.counts, c.bases)
}

// Codec is the column's codec name.
func (c *Column) Codec() string { return c.codec }

// BlockSize is the column's block size, the row stride of decode output.
func (c *Column) BlockSize() int { return c.blockSize }

// NumBlocks is the number of blocks in the column.
func (c *Column) NumBlocks() int { return c.blocks }

// Values is the number of values in the column.
func (c *Column) Values() int { return c.values }

// DataBytes is the size of the column's encoded blocks.
func (c *Column) DataBytes() int64 { return int64(c.dataLen) }
