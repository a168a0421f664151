//go:build cuda

package gpu

import (
	"fmt"
	"sync"
	"time"
	"unsafe"

	"gorgonia.org/cu"
)

// cudaBackend is the query engine's backend on a Device: allocations go
// through the device's budget, and each lane is a stream of its own, so
// that the runs of different lanes overlap on the device (one's launches
// while another's kernels run or its results come back).
type cudaBackend struct {
	d   *Device
	fns map[string]cu.Function // query and decode kernels; read-only after construction

	mu    sync.Mutex
	bufs  map[devPtr]*Buffer
	usage DeviceUsage

	lanesMu sync.Mutex // not mu: making a lane waits for runs, which take mu
	lanes   map[int]*cudaLane
}

// cudaLane is one lane's stream and timing events. Its mutex serializes
// the lane's runs.
type cudaLane struct {
	mu          sync.Mutex
	s           cu.Stream
	events      []cu.Event
	marks       int
	first, read cu.Event // a run's first operation and its last download's start
	reads       int      // downloads in the current run
}

// openBackend opens a device and loads the query kernels on it.
func openBackend(opts DeviceOptions) (*Device, *cudaBackend, error) {
	d, err := OpenDevice(opts)
	if err != nil {
		return nil, nil, err
	}
	be, err := newCudaBackend(d)
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	return d, be, nil
}

// newCudaBackend loads the query kernels (kernels/query.ptx, or from
// PTXDirEnv) next to the device's decoders.
func newCudaBackend(d *Device) (*cudaBackend, error) {
	b := &cudaBackend{d: d, fns: map[string]cu.Function{}, bufs: map[devPtr]*Buffer{}, lanes: map[int]*cudaLane{}}
	err := d.do(func() error {
		ptx, from, err := loadPTX("query")
		if err != nil {
			return err
		}
		mod, err := cu.LoadData(string(ptx))
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrBadPTX, from, err)
		}
		for _, name := range queryKernels {
			fn, err := mod.Function(name)
			if err != nil {
				return fmt.Errorf("%w: %s has no kernel %s: %v", ErrBadPTX, from, name, err)
			}
			b.fns[name] = fn
		}
		for name, fn := range d.fns {
			b.fns[name] = fn
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

func (b *cudaBackend) alloc(size int64) (devPtr, error) {
	buf, err := b.d.Alloc(size)
	if err != nil {
		return 0, err
	}
	p := devPtr(buf.ptr)
	b.mu.Lock()
	b.bufs[p] = buf
	b.mu.Unlock()
	return p, nil
}

func (b *cudaBackend) buffer(p devPtr) (*Buffer, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	buf, ok := b.bufs[p]
	if !ok {
		return nil, fmt.Errorf("gpu: %#x is not an allocation of this engine", uint64(p))
	}
	return buf, nil
}

func (b *cudaBackend) free(p devPtr) error {
	buf, err := b.buffer(p)
	if err != nil {
		return err
	}
	b.mu.Lock()
	delete(b.bufs, p)
	b.mu.Unlock()
	return buf.Free()
}

func (b *cudaBackend) upload(p devPtr, src []byte) error {
	buf, err := b.buffer(p)
	if err != nil {
		return err
	}
	return buf.WriteBytes(src)
}

func (b *cudaBackend) multiprocessors() int { return b.d.Info().SMs }

// lane returns lane i, made on first use.
func (b *cudaBackend) lane(i int) (*cudaLane, error) {
	b.lanesMu.Lock()
	defer b.lanesMu.Unlock()
	if l, ok := b.lanes[i]; ok {
		return l, nil
	}
	l := &cudaLane{}
	err := b.d.do(func() error {
		var err error
		if l.s, err = cu.MakeStream(cu.NonBlocking); err != nil {
			return fmt.Errorf("gpu: make stream: %w", err)
		}
		if l.first, err = cu.MakeEvent(cu.DefaultEvent); err == nil {
			l.read, err = cu.MakeEvent(cu.DefaultEvent)
		}
		if err != nil {
			return fmt.Errorf("gpu: make event: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	b.lanes[i] = l
	return l, nil
}

func (b *cudaBackend) run(lane int, f func(s stream) error) error {
	l, err := b.lane(lane)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return b.d.doShared(func() error {
		start := time.Now()
		l.marks, l.reads = 0, 0
		if err := l.first.Record(l.s); err != nil {
			return fmt.Errorf("gpu: record event: %w", err)
		}
		err := f(cudaStream{b, l})
		if err == nil {
			// A run's last download waited for its work, but a run that
			// ends otherwise must not leave work behind on its buffers.
			err = l.s.Synchronize()
		}
		if err != nil {
			// A failed launch or copy may be a kernel fault: find out, so
			// that a lost context is reported as such from now on.
			if serr := b.d.sync(); serr != nil {
				return serr
			}
			return err
		}
		return b.account(l, time.Since(start))
	})
}

// account adds a finished run to the usage: held is its time on the
// host, and its device time runs from its first operation to the start of
// its last download (which waited for everything before it).
func (b *cudaBackend) account(l *cudaLane, held time.Duration) error {
	var busy time.Duration
	if l.reads > 0 {
		ms, err := l.first.Elapsed(l.read)
		if err != nil {
			return fmt.Errorf("gpu: event time: %w", err)
		}
		busy = time.Duration(ms * float64(time.Millisecond))
	}
	b.mu.Lock()
	b.usage.Runs++
	b.usage.Held += held
	b.usage.Busy += busy
	b.mu.Unlock()
	return nil
}

// deviceUsage returns the runs' totals so far.
func (b *cudaBackend) deviceUsage() DeviceUsage {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.usage
}

// cudaStream queues on a lane's stream. Its methods run inside
// cudaBackend.run.
type cudaStream struct {
	b *cudaBackend
	l *cudaLane
}

func (s cudaStream) upload(p devPtr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	// From pageable memory, the copy returns once src is staged.
	if err := cu.MemcpyHtoDAsync(cu.DevicePtr(p), unsafe.Pointer(&src[0]), int64(len(src)), s.l.s); err != nil {
		return fmt.Errorf("gpu: write %d bytes: %w", len(src), err)
	}
	return nil
}

func (s cudaStream) memset32(p devPtr, v uint32, n int64) error {
	if n == 0 {
		return nil
	}
	if err := cu.MemsetD32Async(cu.DevicePtr(p), uint(v), n, s.l.s); err != nil {
		return fmt.Errorf("gpu: memset %d words: %w", n, err)
	}
	return nil
}

func (s cudaStream) launch(kernel string, grid, block int, args ...uint64) error {
	fn, ok := s.b.fns[kernel]
	if !ok {
		return fmt.Errorf("%w: no kernel %s", ErrBadPTX, kernel)
	}
	vals := append([]uint64(nil), args...)
	ptrs := make([]unsafe.Pointer, len(vals))
	for i := range vals {
		ptrs[i] = unsafe.Pointer(&vals[i])
	}
	if err := fn.Launch(grid, 1, 1, block, 1, 1, 0, s.l.s, ptrs); err != nil {
		return fmt.Errorf("gpu: launch %s (%d x %d): %w", kernel, grid, block, err)
	}
	return nil
}

func (s cudaStream) download(dst []byte, p devPtr) error {
	if len(dst) == 0 {
		return nil
	}
	l := s.l
	if err := l.read.Record(l.s); err != nil {
		return fmt.Errorf("gpu: record event: %w", err)
	}
	l.reads++
	err := cu.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), cu.DevicePtr(p), int64(len(dst)), l.s)
	if err == nil {
		err = l.s.Synchronize()
	}
	if err != nil {
		if serr := s.b.d.sync(); serr != nil {
			return serr
		}
		return fmt.Errorf("gpu: read %d bytes: %w", len(dst), err)
	}
	return nil
}

func (s cudaStream) mark() error {
	l := s.l
	if l.marks == len(l.events) {
		ev, err := cu.MakeEvent(cu.DefaultEvent)
		if err != nil {
			return fmt.Errorf("gpu: make event: %w", err)
		}
		l.events = append(l.events, ev)
	}
	if err := l.events[l.marks].Record(l.s); err != nil {
		return fmt.Errorf("gpu: record event: %w", err)
	}
	l.marks++
	return nil
}

func (s cudaStream) elapsed() ([]time.Duration, error) {
	l := s.l
	var out []time.Duration
	for i := 0; i+1 < l.marks; i++ {
		ms, err := l.events[i].Elapsed(l.events[i+1])
		if err != nil {
			return nil, fmt.Errorf("gpu: event time: %w", err)
		}
		out = append(out, time.Duration(ms*float64(time.Millisecond)))
	}
	return out, nil
}
