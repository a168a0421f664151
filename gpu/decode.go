package gpu

import (
	"fmt"
	"math"
	"time"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/cuda"
)

// Upload copies an index's docid and frequency columns and its skip
// table's last-docid and block-max columns to the device, once, to stay
// resident. Both codecs must have GPU decoders.
func (d *Device) Upload(ix *index.Index) (*Resident, error) {
	dh, fh := IndexColumns(ix)
	sk := ix.Skips()
	r := &Resident{}
	err := func() (err error) {
		if r.DocIDs, err = d.UploadColumn(&dh); err != nil {
			return fmt.Errorf("gpu: upload docids: %w", err)
		}
		if r.Freqs, err = d.UploadColumn(&fh); err != nil {
			return fmt.Errorf("gpu: upload freqs: %w", err)
		}
		if r.LastDocIDs, err = d.Alloc(4 * int64(len(sk.LastDocIDs))); err != nil {
			return err
		}
		if err = r.LastDocIDs.WriteUint32s(sk.LastDocIDs); err != nil {
			return err
		}
		if r.BlockMax, err = d.Alloc(4 * int64(len(sk.BlockMax))); err != nil {
			return err
		}
		bits := make([]uint32, len(sk.BlockMax))
		for i, f := range sk.BlockMax {
			bits[i] = math.Float32bits(f)
		}
		return r.BlockMax.WriteUint32s(bits)
	}()
	if err != nil {
		r.Free()
		return nil, err
	}
	return r, nil
}

// check validates a job on the host, so that a launch cannot go out of
// bounds.
func (d *Device) check(j DecodeJob) error {
	c := j.Col
	switch {
	case c == nil || j.Out == nil:
		return fmt.Errorf("gpu: decode needs a column and an output buffer")
	case c.data.Device() != d.c || j.Out.Device() != d.c || (j.Sel != nil && j.Sel.Device() != d.c):
		return fmt.Errorf("gpu: decode buffers belong to another device")
	case j.Count < 0:
		return fmt.Errorf("gpu: decode of %d blocks", j.Count)
	case j.Sel == nil && (j.First < 0 || j.First+j.Count > c.blocks):
		return fmt.Errorf("gpu: decode of blocks %d..%d of a %d-block column", j.First, j.First+j.Count, c.blocks)
	case j.Sel != nil && j.Sel.Size() < 4*int64(j.Count):
		return fmt.Errorf("gpu: %d selected blocks in a %d-byte buffer", j.Count, j.Sel.Size())
	case j.Out.Size() < 4*int64(j.Count)*int64(c.blockSize):
		return fmt.Errorf("gpu: output of %d blocks of %d values needs %d bytes, buffer has %d",
			j.Count, c.blockSize, 4*int64(j.Count)*int64(c.blockSize), j.Out.Size())
	case j.Output == DocIDs && c.bases == nil:
		return fmt.Errorf("%w: docid output of a column without bases", ErrFormat)
	}
	return nil
}

// launch queues a checked job on the default stream; it runs inside Do.
func (d *Device) launch(j DecodeJob) error {
	if j.Count == 0 {
		return nil
	}
	c := j.Col
	var bases, sel uint64
	if c.bases != nil {
		bases = c.bases.Ptr()
	}
	if j.Sel != nil {
		sel = j.Sel.Ptr()
	}
	grid := (j.Count + decodeWarps - 1) / decodeWarps
	return d.decode.Launch(cuda.Stream{}, "decode_"+c.stem+"_"+j.Output.String(), grid, 32*decodeWarps,
		c.data.Ptr(), c.dataLen, c.offs.Ptr(), c.counts.Ptr(), bases, sel, uint64(j.First), uint64(j.Count),
		uint64(c.blocks), j.Out.Ptr(), uint64(c.blockSize))
}

// Decode runs one decode job and waits for it.
func (d *Device) Decode(j DecodeJob) error {
	if err := d.check(j); err != nil {
		return err
	}
	return d.c.Do(func() error {
		if err := d.launch(j); err != nil {
			return err
		}
		return d.c.Sync()
	})
}

// TimeDecodes launches the jobs back to back and returns the device time
// from the first launch to the end of the last, measured by CUDA events.
func (d *Device) TimeDecodes(jobs []DecodeJob) (time.Duration, error) {
	for _, j := range jobs {
		if err := d.check(j); err != nil {
			return 0, err
		}
	}
	return d.c.Timed(func() error {
		for _, j := range jobs {
			if err := d.launch(j); err != nil {
				return err
			}
		}
		return nil
	})
}

// TimeCopy copies n bytes (a multiple of 16) from src to dst and returns
// the device time: with kernel, by the copy_u4 kernel (16-byte loads and
// stores, the access pattern of the decoders), else by cuMemcpyDtoD.
func (d *Device) TimeCopy(dst, src *Buffer, n int64, kernel bool) (time.Duration, error) {
	if n%16 != 0 || n > dst.Size() || n > src.Size() || dst.Device() != d.c || src.Device() != d.c {
		return 0, fmt.Errorf("gpu: copy of %d bytes between buffers of %d and %d", n, src.Size(), dst.Size())
	}
	return d.c.Timed(func() error {
		if !kernel {
			return cuda.CopyDevice(dst, src, n)
		}
		n16 := uint64(n / 16)
		grid := min(8*max(1, d.Info().SMs), int((n16+255)/256))
		return d.decode.Launch(cuda.Stream{}, "copy_u4", max(grid, 1), 256, src.Ptr(), dst.Ptr(), n16)
	})
}
