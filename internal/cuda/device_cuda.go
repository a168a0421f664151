//go:build cuda

package cuda

import (
	"fmt"
	"runtime"
	"sync"
	"time"

	"gorgonia.org/cu"
)

// Device is one GPU with its own CUDA context. Calls are serialized by a
// lock (except runs through DoShared, which share it), and each runs on
// its caller's own thread, locked to it for the call, with the context
// made current there. An earlier design ran every call on one goroutine
// locked to the context's thread; under load each call then waited for
// that goroutine to be scheduled.
type Device struct {
	info Info
	ctx  cu.CUContext

	gate   sync.RWMutex // held for reading by calls in flight, for writing by Close
	closed bool
	exec   sync.RWMutex // held by the call running on the device, or shared by runs on their own streams

	mu   sync.Mutex
	used int64 // bytes allocated
	lost error // set when a kernel fault left the context unusable

	// Used only under exec held alone.
	start, end cu.Event
	stage      hostStage // large reads pass through it (destroying the context frees it)
}

// waitFlags maps Options.Wait to the context's scheduling flag; it lists
// the valid modes.
var waitFlags = map[string]cu.ContextFlags{
	"": cu.SchedAuto, "auto": cu.SchedAuto, "spin": cu.SchedSpin, "yield": cu.SchedYield, "block": cu.SchedBlockingSync,
}

// Open creates a context on the chosen GPU. Errors wrap ErrNoDevice; an
// unknown wait mode is an error of its own.
func Open(opts Options) (*Device, error) {
	if _, ok := waitFlags[opts.Wait]; !ok {
		return nil, fmt.Errorf("gpu: wait mode %q: want auto, spin, yield or block", opts.Wait)
	}
	d := &Device{}
	if err := d.open(opts); err != nil {
		return nil, err
	}
	return d, nil
}

// open creates the context and its two timing events, and leaves the
// context current on no thread: each call makes it current on its own.
func (d *Device) open(opts Options) (err error) {
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
func (d *Device) describe(dev cu.Device, opts Options) error {
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
	d.info = Info{
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

// Do runs f with the device to itself, on the calling goroutine's thread
// with the context current there, and returns f's error.
func (d *Device) Do(f func() error) error { return d.hold(false, f) }

// DoShared is Do for work queued on a stream of the caller's own that
// ends by waiting for that stream: such calls run at once, their kernels
// side by side on the device, while calls through Do wait for all of
// them (and they for it).
func (d *Device) DoShared(f func() error) error { return d.hold(true, f) }

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

// Sync waits for the device's work; an error there is a kernel fault,
// which leaves the context unusable, so every later call returns it. It
// runs inside Do.
func (d *Device) Sync() error {
	if err := cu.Synchronize(); err != nil {
		err = fmt.Errorf("gpu: kernel failed, device unusable until reopened: %w", err)
		d.mu.Lock()
		d.lost = err
		d.mu.Unlock()
		return err
	}
	return nil
}

// Timed records an event on the default stream, runs launches (which
// queue work there), records another and waits for it; it returns the
// device time between the events.
func (d *Device) Timed(launches func() error) (time.Duration, error) {
	var ms float64
	err := d.Do(func() error {
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
			if serr := d.Sync(); serr != nil {
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
func (d *Device) Info() Info { return d.info }

// Used is the number of bytes allocated on the device.
func (d *Device) Used() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.used
}
