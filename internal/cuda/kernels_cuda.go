//go:build cuda

package cuda

import (
	"fmt"
	"io/fs"
	"time"
	"unsafe"

	"gorgonia.org/cu"
)

// Module is a loaded PTX module's kernels, by name.
type Module struct {
	from string
	fns  map[string]cu.Function
}

// Load loads kernels/<name>.ptx from fsys (or from PTXDirEnv) and looks up
// every kernel of kernels. Errors wrap ErrBadPTX.
func (d *Device) Load(fsys fs.FS, name string, kernels []string) (*Module, error) {
	ptx, from, err := readPTX(fsys, name)
	if err != nil {
		return nil, err
	}
	m := &Module{from: from, fns: map[string]cu.Function{}}
	err = d.Do(func() error {
		mod, err := cu.LoadData(string(ptx))
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrBadPTX, from, err)
		}
		for _, k := range kernels {
			fn, err := mod.Function(k)
			if err != nil {
				return fmt.Errorf("%w: %s has no kernel %s: %v", ErrBadPTX, from, k, err)
			}
			m.fns[k] = fn
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// From says where the module was loaded from.
func (m *Module) From() string { return m.from }

// Has reports whether the module has the named kernel.
func (m *Module) Has(kernel string) bool {
	_, ok := m.fns[kernel]
	return ok
}

// Launch queues the named kernel on s, grid CTAs of block threads; args
// are its parameters, 8 bytes each (cu copies 8 bytes per argument). It
// runs inside Do.
func (m *Module) Launch(s Stream, kernel string, grid, block int, args ...uint64) error {
	fn, ok := m.fns[kernel]
	if !ok {
		return fmt.Errorf("%w: no kernel %s", ErrBadPTX, kernel)
	}
	vals := append([]uint64(nil), args...)
	ptrs := make([]unsafe.Pointer, len(vals))
	for i := range vals {
		ptrs[i] = unsafe.Pointer(&vals[i])
	}
	if err := fn.Launch(grid, 1, 1, block, 1, 1, 0, s.s, ptrs); err != nil {
		return fmt.Errorf("gpu: launch %s (%d x %d): %w", kernel, grid, block, err)
	}
	return nil
}

// Stream is a queue of work on the device; the zero Stream is the
// default stream.
type Stream struct{ s cu.Stream }

// NewStream makes a stream that does not wait for the default stream. It
// runs inside Do.
func NewStream() (Stream, error) {
	s, err := cu.MakeStream(cu.NonBlocking)
	if err != nil {
		return Stream{}, fmt.Errorf("gpu: make stream: %w", err)
	}
	return Stream{s}, nil
}

// Upload queues a copy of src to device address dst; from pageable
// memory, it returns once src is staged. It runs inside Do.
func (s Stream) Upload(dst uint64, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	if err := cu.MemcpyHtoDAsync(cu.DevicePtr(dst), unsafe.Pointer(&src[0]), int64(len(src)), s.s); err != nil {
		return fmt.Errorf("gpu: write %d bytes: %w", len(src), err)
	}
	return nil
}

// Memset32 queues setting n 32-bit words from device address dst to v. It
// runs inside Do.
func (s Stream) Memset32(dst uint64, v uint32, n int64) error {
	if n == 0 {
		return nil
	}
	if err := cu.MemsetD32Async(cu.DevicePtr(dst), uint(v), n, s.s); err != nil {
		return fmt.Errorf("gpu: memset %d words: %w", n, err)
	}
	return nil
}

// Download queues a copy of len(dst) bytes from device address src into
// dst, which must not be touched until the stream is synchronized. It
// runs inside Do.
func (s Stream) Download(dst []byte, src uint64) error {
	if len(dst) == 0 {
		return nil
	}
	return cu.MemcpyDtoHAsync(unsafe.Pointer(&dst[0]), cu.DevicePtr(src), int64(len(dst)), s.s)
}

// Synchronize waits for the stream's work. It runs inside Do.
func (s Stream) Synchronize() error { return s.s.Synchronize() }

// Event marks a point in a stream's work, for timing.
type Event struct{ e cu.Event }

// NewEvent makes an event. It runs inside Do.
func NewEvent() (Event, error) {
	e, err := cu.MakeEvent(cu.DefaultEvent)
	if err != nil {
		return Event{}, fmt.Errorf("gpu: make event: %w", err)
	}
	return Event{e}, nil
}

// Record queues the event on s. It runs inside Do.
func (e Event) Record(s Stream) error {
	if err := e.e.Record(s.s); err != nil {
		return fmt.Errorf("gpu: record event: %w", err)
	}
	return nil
}

// Elapsed is the device time from e to end, both recorded and reached. It
// runs inside Do.
func (e Event) Elapsed(end Event) (time.Duration, error) {
	ms, err := e.e.Elapsed(end.e)
	if err != nil {
		return 0, fmt.Errorf("gpu: event time: %w", err)
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}
