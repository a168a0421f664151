package gpu

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/gpusearch/gpusearch/codecplugins"
)

// reencodeCodecs names, by index block size, the GPU codec a column is
// re-encoded with when its own codec has no GPU decoder. Every CPU codec
// has 128-value blocks; the GPU formats are per block, so re-encoding keeps
// the skip table valid.
var reencodeCodecs = map[int]string{128: "gpu-bp128", 256: "gpu-bp256", 1024: "gpu-vbyte1024"}

// gpuColumn returns h unchanged when the GPU decodes its codec, and
// otherwise h re-encoded block by block with the GPU codec of the same
// block size: the values (d-gaps from the same bases, or freq-1) do not
// change. It reports whether it re-encoded.
func gpuColumn(h HostColumn) (HostColumn, bool, error) {
	if Decodable(h.Codec) {
		return h, false, nil
	}
	target, ok := reencodeCodecs[h.BlockSize]
	if !ok {
		return h, false, fmt.Errorf("%w: codec %s has no GPU decoder and no GPU codec has %d-value blocks", ErrFormat, h.Codec, h.BlockSize)
	}
	src, err := codecplugins.Lookup(h.Codec)
	if err != nil {
		return h, false, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	dst, err := codecplugins.Lookup(target)
	if err != nil {
		return h, false, fmt.Errorf("%w: %w (forgotten import of codecplugins/gpuformat?)", ErrFormat, err)
	}
	nb := h.NumBlocks()
	if len(h.Offsets) != nb+1 {
		return h, false, fmt.Errorf("%w: %d offsets for %d blocks", ErrFormat, len(h.Offsets), nb)
	}
	// Chunks of blocks re-encoded in parallel, then concatenated.
	workers := max(1, min(runtime.GOMAXPROCS(0), nb/1024))
	type chunk struct {
		data []byte
		offs []uint64 // relative to the chunk's start, one per block
		err  error
	}
	chunks := make([]chunk, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := nb*w/workers, nb*(w+1)/workers
		wg.Add(1)
		go func(c *chunk) {
			defer wg.Done()
			vals := make([]uint32, h.BlockSize)
			for b := lo; b < hi; b++ {
				n := int(h.Counts[b])
				if n > h.BlockSize || h.Offsets[b+1] < h.Offsets[b] || h.Offsets[b+1] > uint64(len(h.Data)) {
					c.err = fmt.Errorf("%w: block %d: bad count or offsets", ErrFormat, b)
					return
				}
				if err := src.DecodeBlock(vals[:n], h.Data[h.Offsets[b]:h.Offsets[b+1]], n); err != nil {
					c.err = fmt.Errorf("gpu: re-encode %s block %d: %w", h.Codec, b, err)
					return
				}
				c.offs = append(c.offs, uint64(len(c.data)))
				c.data = dst.AppendBlock(c.data, vals[:n])
			}
		}(&chunks[w])
	}
	wg.Wait()
	out := HostColumn{Codec: target, BlockSize: h.BlockSize, Counts: h.Counts, Bases: h.Bases, Offsets: make([]uint64, 0, nb+1)}
	for _, c := range chunks {
		if c.err != nil {
			return h, false, c.err
		}
		base := uint64(len(out.Data))
		for _, o := range c.offs {
			out.Offsets = append(out.Offsets, base+o)
		}
		out.Data = append(out.Data, c.data...)
	}
	out.Offsets = append(out.Offsets, uint64(len(out.Data)))
	return out, true, nil
}

// devColumn is a column resident on the device, as the decode kernels
// take it.
type devColumn struct {
	stem                      string // the kernels' name stem
	data, offs, counts, bases devPtr // bases is 0 for frequencies
	dataLen                   uint64
	blocks                    int
}

// uploadColumn validates h and copies it to the device, allocating with
// alloc (which records what to free).
func uploadColumn(be backend, h *HostColumn, alloc func(int64) (devPtr, error)) (devColumn, error) {
	c := devColumn{stem: kernels[h.Codec], dataLen: uint64(len(h.Data)), blocks: h.NumBlocks()}
	if err := h.Validate(); err != nil {
		return c, err
	}
	put := func(dst *devPtr, b []byte, slack int64) error {
		p, err := alloc(int64(len(b)) + slack)
		if err != nil {
			return err
		}
		*dst = p
		return be.upload(p, b)
	}
	// The decoders stage whole 16-byte chunks, and one more, around a
	// block: 64 bytes of slack past the data.
	if err := put(&c.data, h.Data, 64); err != nil {
		return c, err
	}
	if err := put(&c.offs, bytesOf(h.Offsets), 0); err != nil {
		return c, err
	}
	if err := put(&c.counts, bytesOf(h.Counts), 0); err != nil {
		return c, err
	}
	if h.Bases != nil {
		if err := put(&c.bases, bytesOf(h.Bases), 0); err != nil {
			return c, err
		}
	}
	return c, nil
}
