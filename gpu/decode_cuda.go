//go:build cuda

package gpu

import (
	"fmt"
	"math"
	"time"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/gpusearch/gpusearch/index"
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
	case c.data.d != d || j.Out.d != d || (j.Sel != nil && j.Sel.d != d):
		return fmt.Errorf("gpu: decode buffers belong to another device")
	case j.Count < 0:
		return fmt.Errorf("gpu: decode of %d blocks", j.Count)
	case j.Sel == nil && (j.First < 0 || j.First+j.Count > c.blocks):
		return fmt.Errorf("gpu: decode of blocks %d..%d of a %d-block column", j.First, j.First+j.Count, c.blocks)
	case j.Sel != nil && j.Sel.size < 4*int64(j.Count):
		return fmt.Errorf("gpu: %d selected blocks in a %d-byte buffer", j.Count, j.Sel.size)
	case j.Out.size < 4*int64(j.Count)*int64(c.blockSize):
		return fmt.Errorf("gpu: output of %d blocks of %d values needs %d bytes, buffer has %d",
			j.Count, c.blockSize, 4*int64(j.Count)*int64(c.blockSize), j.Out.size)
	case j.Output == DocIDs && c.bases == nil:
		return fmt.Errorf("%w: docid output of a column without bases", ErrFormat)
	}
	return nil
}

// launch starts a checked job on the default stream; it runs inside
// Device.do.
func (d *Device) launch(j DecodeJob) error {
	if j.Count == 0 {
		return nil
	}
	c := j.Col
	fn := d.fns["decode_"+c.stem+"_"+j.Output.String()]
	data, offs, counts, out := c.data.ptr, c.offs.ptr, c.counts.ptr, j.Out.ptr
	var bases, sel cu.DevicePtr
	if c.bases != nil {
		bases = c.bases.ptr
	}
	if j.Sel != nil {
		sel = j.Sel.ptr
	}
	dataLen, first, nblocks, total, stride := c.dataLen, uint64(j.First), uint64(j.Count), uint64(c.blocks), uint64(c.blockSize)
	args := []unsafe.Pointer{
		unsafe.Pointer(&data), unsafe.Pointer(&dataLen), unsafe.Pointer(&offs), unsafe.Pointer(&counts),
		unsafe.Pointer(&bases), unsafe.Pointer(&sel), unsafe.Pointer(&first), unsafe.Pointer(&nblocks),
		unsafe.Pointer(&total), unsafe.Pointer(&out), unsafe.Pointer(&stride),
	}
	grid := (j.Count + warpsPerCTA - 1) / warpsPerCTA
	if err := fn.Launch(grid, 1, 1, 32*warpsPerCTA, 1, 1, 0, cu.Stream{}, args); err != nil {
		return fmt.Errorf("gpu: launch decode %s %s: %w", c.codec, j.Output, err)
	}
	return nil
}

// Decode runs one decode job and waits for it.
func (d *Device) Decode(j DecodeJob) error {
	if err := d.check(j); err != nil {
		return err
	}
	return d.do(func() error {
		if err := d.launch(j); err != nil {
			return err
		}
		return d.sync()
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
	return d.timed(func() error {
		for _, j := range jobs {
			if err := d.launch(j); err != nil {
				return err
			}
		}
		return nil
	})
}

// timed records the start event, runs launches, records the end event and
// waits for it; it returns the time between the events.
func (d *Device) timed(launches func() error) (time.Duration, error) {
	var ms float64
	err := d.do(func() error {
		if err := d.start.Record(cu.Stream{}); err != nil {
			return fmt.Errorf("gpu: record event: %w", err)
		}
		if err := launches(); err != nil {
			return err
		}
		if err := d.end.Record(cu.Stream{}); err != nil {
			return fmt.Errorf("gpu: record event: %w", err)
		}
		if err := d.end.Synchronize(); err != nil {
			if serr := d.sync(); serr != nil {
				return serr
			}
			return fmt.Errorf("gpu: wait for event: %w", err)
		}
		var err error
		ms, err = d.start.Elapsed(d.end)
		return err
	})
	return time.Duration(ms * float64(time.Millisecond)), err
}

// TimeCopy copies n bytes (a multiple of 16) from src to dst and returns
// the device time: with kernel, by the copy_u4 kernel (16-byte loads and
// stores, the access pattern of the decoders), else by cuMemcpyDtoD.
func (d *Device) TimeCopy(dst, src *Buffer, n int64, kernel bool) (time.Duration, error) {
	if n%16 != 0 || n > dst.size || n > src.size || dst.d != d || src.d != d {
		return 0, fmt.Errorf("gpu: copy of %d bytes between buffers of %d and %d", n, src.size, dst.size)
	}
	return d.timed(func() error {
		if !kernel {
			return cu.MemcpyDtoD(dst.ptr, src.ptr, n)
		}
		s, t, n16 := src.ptr, dst.ptr, uint64(n/16)
		args := []unsafe.Pointer{unsafe.Pointer(&s), unsafe.Pointer(&t), unsafe.Pointer(&n16)}
		grid := min(8*max(1, d.info.SMs), int((n16+255)/256))
		return d.fns["copy_u4"].Launch(max(grid, 1), 1, 1, 256, 1, 1, 0, cu.Stream{}, args)
	})
}
