//go:build cuda

package gpu

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"gorgonia.org/cu"
)

// warpsPerCTA must match WARPS in kernels/decode.cu: each warp decodes one
// block, so a launch of n blocks has ceil(n/warpsPerCTA) CTAs.
const warpsPerCTA = 4

// Device is one GPU with its own CUDA context. Calls are serialized by a
// lock (except the query engines' runs, each on a stream of its own, which
// share it: see doShared), and each runs on its caller's own thread,
// locked to it for the call, with the context made current there: a
// Device is safe for concurrent use, and a call costs no hand-off to
// another thread. (An earlier design ran every call on one goroutine
// locked to the context's thread; under load each call then waited for
// that goroutine to be scheduled: docs/scheduling.md, run AB.)
type Device struct {
	info DeviceInfo
	ctx  cu.CUContext

	gate   sync.RWMutex // held for reading by calls in flight, for writing by Close
	closed bool
	exec   sync.RWMutex // held by the call running on the device, or shared by runs on their own streams

	mu   sync.Mutex
	used int64 // bytes allocated
	lost error // set when a kernel fault left the context unusable

	// Written only under exec held alone (fns only while opening).
	fns        map[string]cu.Function
	start, end cu.Event
	ptxFrom    string
	stage      hostStage // large reads pass through it (destroying the context frees it)
}

// waitFlags maps DeviceOptions.Wait to the context's scheduling flag; it
// lists the valid modes.
var waitFlags = map[string]cu.ContextFlags{
	"": cu.SchedAuto, "auto": cu.SchedAuto, "spin": cu.SchedSpin, "yield": cu.SchedYield, "block": cu.SchedBlockingSync,
}

// OpenDevice creates a context on the chosen GPU, loads the kernels (see
// PTXDirEnv) and returns the device. Errors wrap ErrNoDevice or ErrBadPTX;
// an unknown wait mode is an error of its own.
func OpenDevice(opts DeviceOptions) (*Device, error) {
	if _, ok := waitFlags[opts.Wait]; !ok {
		return nil, fmt.Errorf("gpu: wait mode %q: want auto, spin, yield or block", opts.Wait)
	}
	d := &Device{fns: map[string]cu.Function{}}
	if err := d.open(opts); err != nil {
		return nil, err
	}
	if err := d.do(d.loadKernels); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// open creates the context and its two timing events, and leaves the
// context current on no thread: each call makes it current on its own.
func (d *Device) open(opts DeviceOptions) (err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	n, err := cu.NumDevices()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoDevice, err)
	}
	if opts.Ordinal < 0 || opts.Ordinal >= n {
		return fmt.Errorf("%w: device %d requested, %d present", ErrNoDevice, opts.Ordinal, n)
	}
	dev, err := cu.GetDevice(opts.Ordinal)
	if err != nil {
		return fmt.Errorf("%w: device %d: %v", ErrNoDevice, opts.Ordinal, err)
	}
	if d.ctx, err = dev.MakeContext(waitFlags[opts.Wait]); err != nil {
		return fmt.Errorf("%w: device %d: create context: %v", ErrNoDevice, opts.Ordinal, err)
	}
	if err = d.describe(dev, opts); err == nil {
		if d.start, err = cu.MakeEvent(cu.DefaultEvent); err == nil {
			d.end, err = cu.MakeEvent(cu.DefaultEvent)
		}
	}
	if err != nil {
		d.ctx.Destroy()
		return fmt.Errorf("gpu: device %d: %w", opts.Ordinal, err)
	}
	if _, err = cu.PopCurrentCtx(); err != nil {
		d.ctx.Destroy()
		return fmt.Errorf("gpu: device %d: %w", opts.Ordinal, err)
	}
	return nil
}

// describe fills d.info from the device's attributes and sets the budget.
func (d *Device) describe(dev cu.Device, opts DeviceOptions) error {
	name, err := dev.Name()
	if err != nil {
		return err
	}
	attr := map[cu.DeviceAttribute]int{
		cu.ComputeCapabilityMajor: 0, cu.ComputeCapabilityMinor: 0, cu.MultiprocessorCount: 0,
		cu.L2CacheSize: 0, cu.MemoryClockRate: 0, cu.GlobalMemoryBusWidth: 0,
	}
	for a := range attr {
		if attr[a], err = dev.Attribute(a); err != nil {
			return err
		}
	}
	total, err := dev.TotalMem()
	if err != nil {
		return err
	}
	free, _, err := cu.MemInfo()
	if err != nil {
		return err
	}
	budget := opts.MemoryBudgetMB << 20
	if budget <= 0 {
		budget = free
	}
	d.info = DeviceInfo{
		Ordinal:           opts.Ordinal,
		Name:              name,
		ComputeCapability: fmt.Sprintf("%d.%d", attr[cu.ComputeCapabilityMajor], attr[cu.ComputeCapabilityMinor]),
		SMs:               attr[cu.MultiprocessorCount],
		L2Bytes:           int64(attr[cu.L2CacheSize]),
		TotalBytes:        total,
		BudgetBytes:       budget,
		// Double data rate: two transfers per memory clock (kHz).
		PeakGBs: 2 * float64(attr[cu.MemoryClockRate]) * 1e3 * float64(attr[cu.GlobalMemoryBusWidth]) / 8 / 1e9,
		Driver:  cu.Version(),
	}
	return nil
}

// loadKernels loads the decode module and looks up every kernel.
func (d *Device) loadKernels() error {
	ptx, from, err := loadPTX("decode")
	if err != nil {
		return err
	}
	mod, err := cu.LoadData(string(ptx))
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadPTX, from, err)
	}
	names := []string{"copy_u4"}
	for _, stem := range kernels {
		names = append(names, "decode_"+stem+"_gaps", "decode_"+stem+"_docids")
	}
	for _, name := range names {
		fn, err := mod.Function(name)
		if err != nil {
			return fmt.Errorf("%w: %s has no kernel %s: %v", ErrBadPTX, from, name, err)
		}
		d.fns[name] = fn
	}
	d.ptxFrom = from
	return nil
}

// do runs f with the device to itself, on the calling goroutine's thread
// with the context current there, and returns f's error.
func (d *Device) do(f func() error) error { return d.hold(false, f) }

// doShared is do for work queued on a stream of the caller's own that
// ends by waiting for that stream: such calls run at once, their kernels
// side by side on the device, while calls through do wait for all of
// them (and they for it). f must not touch what do's callers share
// (start, end).
func (d *Device) doShared(f func() error) error { return d.hold(true, f) }

// hold runs f under exec, shared or not.
func (d *Device) hold(shared bool, f func() error) error {
	d.gate.RLock()
	defer d.gate.RUnlock()
	if d.closed {
		return ErrClosed
	}
	d.mu.Lock()
	lost := d.lost
	d.mu.Unlock()
	if lost != nil {
		return lost
	}
	if shared {
		d.exec.RLock()
		defer d.exec.RUnlock()
	} else {
		d.exec.Lock()
		defer d.exec.Unlock()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cu.SetCurrentContext(d.ctx); err != nil {
		return fmt.Errorf("gpu: make the context current: %w", err)
	}
	return f()
}

// sync waits for the device's work; an error there is a kernel fault,
// which leaves the context unusable, so every later call returns it.
func (d *Device) sync() error {
	if err := cu.Synchronize(); err != nil {
		err = fmt.Errorf("gpu: kernel failed, device unusable until reopened: %w", err)
		d.mu.Lock()
		d.lost = err
		d.mu.Unlock()
		return err
	}
	return nil
}

// Close destroys the context, which frees all of the device's memory. It
// waits for calls in flight.
func (d *Device) Close() error {
	d.gate.Lock()
	defer d.gate.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	if err := d.ctx.Destroy(); err != nil {
		return fmt.Errorf("gpu: destroy context: %w", err)
	}
	return nil
}

// Info describes the device.
func (d *Device) Info() DeviceInfo { return d.info }

// PTXSource says where the kernels were loaded from.
func (d *Device) PTXSource() string { return d.ptxFrom }

// Used is the number of bytes allocated on the device.
func (d *Device) Used() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.used
}

// Buffer is a block of device memory.
type Buffer struct {
	d    *Device
	ptr  cu.DevicePtr
	size int64
}

// Alloc allocates size bytes (rounded up to a multiple of 16) of device
// memory. It fails with an error wrapping ErrOutOfMemory past the budget or
// when the device is full.
func (d *Device) Alloc(size int64) (*Buffer, error) {
	size = max(16, (size+15)&^15)
	d.mu.Lock()
	if d.used+size > d.info.BudgetBytes {
		used := d.used
		d.mu.Unlock()
		return nil, fmt.Errorf("%w: %d bytes requested, %d of the %d-byte budget in use", ErrOutOfMemory, size, used, d.info.BudgetBytes)
	}
	d.used += size
	d.mu.Unlock()
	var p cu.DevicePtr
	err := d.do(func() (err error) {
		p, err = cu.MemAlloc(size)
		return err
	})
	if err != nil {
		d.release(size)
		if errors.Is(err, cu.OutOfMemory) {
			return nil, fmt.Errorf("%w: %d bytes requested: %v", ErrOutOfMemory, size, err)
		}
		return nil, fmt.Errorf("gpu: alloc %d bytes: %w", size, err)
	}
	return &Buffer{d: d, ptr: p, size: size}, nil
}

func (d *Device) release(size int64) {
	d.mu.Lock()
	d.used -= size
	d.mu.Unlock()
}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() int64 { return b.size }

// Free releases the buffer; freeing a nil or freed buffer does nothing.
func (b *Buffer) Free() error {
	if b == nil || b.ptr == 0 {
		return nil
	}
	err := b.d.do(func() error { return cu.MemFree(b.ptr) })
	b.d.release(b.size)
	b.ptr = 0
	if errors.Is(err, ErrClosed) {
		return nil // the context is gone and its memory with it
	}
	return err
}

func (b *Buffer) write(p unsafe.Pointer, n int64) error {
	if n > b.size {
		return fmt.Errorf("gpu: write of %d bytes into a %d-byte buffer", n, b.size)
	}
	if n == 0 {
		return nil
	}
	return b.d.do(func() error { return cu.MemcpyHtoD(b.ptr, p, n) })
}

// WriteBytes copies src to the start of the buffer.
func (b *Buffer) WriteBytes(src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return b.write(unsafe.Pointer(&src[0]), int64(len(src)))
}

// WriteUint32s copies src to the start of the buffer.
func (b *Buffer) WriteUint32s(src []uint32) error { return writeSlice(b, src) }

// WriteUint64s copies src to the start of the buffer.
func (b *Buffer) WriteUint64s(src []uint64) error { return writeSlice(b, src) }

// ReadUint32s copies the start of the buffer into dst.
func (b *Buffer) ReadUint32s(dst []uint32) error { return read(b, dst) }

// writeSlice copies src to the start of the buffer.
func writeSlice[T uint32 | uint64](b *Buffer, src []T) error {
	if len(src) == 0 {
		return nil
	}
	return b.write(unsafe.Pointer(&src[0]), int64(unsafe.Sizeof(src[0]))*int64(len(src)))
}

// read copies the start of the buffer into dst.
func read[T uint32 | uint64](b *Buffer, dst []T) error {
	n := int64(unsafe.Sizeof(T(0))) * int64(len(dst))
	if n > b.size {
		return fmt.Errorf("gpu: read of %d bytes from a %d-byte buffer", n, b.size)
	}
	if n == 0 {
		return nil
	}
	host := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), n)
	return b.d.do(func() error { return b.d.readInto(host, b.ptr) })
}

// uint32At reads the i-th uint32 of the buffer.
func (b *Buffer) uint32At(i int) (uint32, error) {
	if int64(4*i+4) > b.size {
		return 0, fmt.Errorf("gpu: read of uint32 %d from a %d-byte buffer", i, b.size)
	}
	var v uint32
	err := b.d.do(func() error { return cu.MemcpyDtoH(unsafe.Pointer(&v), b.ptr+cu.DevicePtr(4*i), 4) })
	return v, err
}

// Fill32 sets every 32-bit word of the buffer to v (to poison an output
// before a decode, so that an unwritten value shows).
func (b *Buffer) Fill32(v uint32) error {
	return b.d.do(func() error { return cu.MemsetD32(b.ptr, v, b.size/4) })
}

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
	return freeBuffers(c.data, c.offs, c.counts, c.bases)
}

// freeBuffers frees every buffer (nil ones included: Free is nil-safe)
// and returns the first error.
func freeBuffers(bufs ...*Buffer) error {
	var first error
	for _, b := range bufs {
		if err := b.Free(); err != nil && first == nil {
			first = err
		}
	}
	return first
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
