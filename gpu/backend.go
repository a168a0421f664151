package gpu

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gpusearch/gpusearch/internal/cuda"
)

// deviceBackend is the query engine's backend on a Device: allocations go
// through the device's budget, and each lane is a stream of its own, so
// that the runs of different lanes overlap on the device (one's launches
// while another's kernels run or its results come back).
type deviceBackend struct {
	d    *Device
	mods []*cuda.Module // the query and decode kernels
	// graphs queues each run's launches and memsets as CUDA graphs
	// (cuda.Graph): one graph launch per stretch between copies instead
	// of a launch each. Set before the first run.
	graphs bool

	mu    sync.Mutex
	bufs  map[devPtr]*Buffer
	usage DeviceUsage

	lanesMu sync.Mutex // not mu: making a lane waits for runs, which take mu
	lanes   map[int]*lane
}

// lane is one lane's stream and timing events. Its mutex serializes the
// lane's runs.
type lane struct {
	mu          sync.Mutex
	s           cuda.Stream
	events      []cuda.Event
	marks       int
	first, read cuda.Event  // a run's first operation and its last download's start
	reads       int         // downloads in the current run
	graph       *cuda.Graph // the run's launches since its last copy; nil: graphs off
}

// openBackend opens a device and loads the query kernels
// (kernels/query.ptx) next to its decoders.
func openBackend(opts DeviceOptions) (*Device, *deviceBackend, error) {
	d, err := OpenDevice(opts)
	if err != nil {
		return nil, nil, err
	}
	q, err := d.c.Load(kernelFS, "query", append(slices.Clone(queryKernels), fusedKernels()...))
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	b := &deviceBackend{d: d, mods: []*cuda.Module{q, d.decode}, bufs: map[devPtr]*Buffer{}, lanes: map[int]*lane{}, graphs: true}
	return d, b, nil
}

func (b *deviceBackend) alloc(size int64) (devPtr, error) {
	buf, err := b.d.Alloc(size)
	if err != nil {
		return 0, err
	}
	p := devPtr(buf.Ptr())
	b.mu.Lock()
	b.bufs[p] = buf
	b.mu.Unlock()
	return p, nil
}

func (b *deviceBackend) buffer(p devPtr) (*Buffer, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	buf, ok := b.bufs[p]
	if !ok {
		return nil, fmt.Errorf("gpu: %#x is not an allocation of this engine", uint64(p))
	}
	return buf, nil
}

func (b *deviceBackend) free(p devPtr) error {
	buf, err := b.buffer(p)
	if err != nil {
		return err
	}
	b.mu.Lock()
	delete(b.bufs, p)
	b.mu.Unlock()
	return buf.Free()
}

func (b *deviceBackend) upload(p devPtr, src []byte) error {
	buf, err := b.buffer(p)
	if err != nil {
		return err
	}
	return buf.WriteBytes(src)
}

func (b *deviceBackend) multiprocessors() int { return b.d.Info().SMs }

// lane returns lane i, made on first use.
func (b *deviceBackend) lane(i int) (*lane, error) {
	b.lanesMu.Lock()
	defer b.lanesMu.Unlock()
	if l, ok := b.lanes[i]; ok {
		return l, nil
	}
	l := &lane{}
	if b.graphs {
		l.graph = cuda.NewGraph()
	}
	err := b.d.c.Do(func() error {
		var err error
		if l.s, err = cuda.NewStream(); err != nil {
			return err
		}
		if l.first, err = cuda.NewEvent(); err == nil {
			l.read, err = cuda.NewEvent()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	b.lanes[i] = l
	return l, nil
}

func (b *deviceBackend) run(lane int, f func(s stream) error) error {
	l, err := b.lane(lane)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return b.d.c.DoShared(func() error {
		start := time.Now()
		l.marks, l.reads = 0, 0
		if err := l.first.Record(l.s); err != nil {
			return err
		}
		ds := deviceStream{b, l}
		err := f(ds)
		if err == nil {
			// A run's last download waited for its work, but a run that
			// ends otherwise must not leave work behind on its buffers.
			if err = ds.flush(); err == nil {
				err = l.s.Synchronize()
			}
		}
		if err != nil {
			if l.graph != nil {
				l.graph.Reset()
			}
			// A failed launch or copy may be a kernel fault: find out, so
			// that a lost context is reported as such from now on.
			if serr := b.d.c.Sync(); serr != nil {
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
func (b *deviceBackend) account(l *lane, held time.Duration) error {
	var busy time.Duration
	if l.reads > 0 {
		var err error
		if busy, err = l.first.Elapsed(l.read); err != nil {
			return err
		}
	}
	b.mu.Lock()
	b.usage.Runs++
	b.usage.Held += held
	b.usage.Busy += busy
	b.mu.Unlock()
	return nil
}

// close frees the lanes' graphs.
func (b *deviceBackend) close() error {
	b.lanesMu.Lock()
	defer b.lanesMu.Unlock()
	return b.d.c.Do(func() error {
		var first error
		for _, l := range b.lanes {
			if l.graph == nil {
				continue
			}
			if err := l.graph.Close(); err != nil && first == nil {
				first = err
			}
		}
		return first
	})
}

// graphsBroken is why a lane's graphs were refused by the driver (the
// lane then launches one by one), or nil.
func (b *deviceBackend) graphsBroken() error {
	b.lanesMu.Lock()
	defer b.lanesMu.Unlock()
	for _, l := range b.lanes {
		if l.graph != nil && l.graph.Broken() != nil {
			return l.graph.Broken()
		}
	}
	return nil
}

// deviceUsage returns the runs' totals so far.
func (b *deviceBackend) deviceUsage() DeviceUsage {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.usage
}

// deviceStream queues on a lane's stream. Its methods run inside
// deviceBackend.run.
type deviceStream struct {
	b *deviceBackend
	l *lane
}

// flush queues the launches and memsets the lane's graph recorded, as
// one graph, before an operation that is no graph node (a copy, an
// event) or the end of the run.
func (s deviceStream) flush() error {
	if g := s.l.graph; g != nil && g.Len() > 0 {
		return g.Flush(s.l.s)
	}
	return nil
}

func (s deviceStream) upload(p devPtr, src []byte) error {
	if err := s.flush(); err != nil {
		return err
	}
	return s.l.s.Upload(uint64(p), src)
}

func (s deviceStream) memset32(p devPtr, v uint32, n int64) error {
	if s.l.graph != nil {
		return s.l.graph.Memset32(uint64(p), v, n)
	}
	return s.l.s.Memset32(uint64(p), v, n)
}

func (s deviceStream) launch(kernel string, grid, block int, args ...uint64) error {
	for _, m := range s.b.mods {
		if !m.Has(kernel) {
			continue
		}
		if s.l.graph != nil {
			return s.l.graph.Launch(m, kernel, grid, block, args...)
		}
		return m.Launch(s.l.s, kernel, grid, block, args...)
	}
	return fmt.Errorf("%w: no kernel %s", ErrBadPTX, kernel)
}

func (s deviceStream) download(dst []byte, p devPtr) error {
	if len(dst) == 0 {
		return nil
	}
	if err := s.flush(); err != nil {
		return err
	}
	l := s.l
	if err := l.read.Record(l.s); err != nil {
		return err
	}
	l.reads++
	err := l.s.Download(dst, uint64(p))
	if err == nil {
		err = l.s.Synchronize()
	}
	if err != nil {
		if serr := s.b.d.c.Sync(); serr != nil {
			return serr
		}
		return fmt.Errorf("gpu: read %d bytes: %w", len(dst), err)
	}
	return nil
}

func (s deviceStream) mark() error {
	if err := s.flush(); err != nil {
		return err
	}
	l := s.l
	if l.marks == len(l.events) {
		ev, err := cuda.NewEvent()
		if err != nil {
			return err
		}
		l.events = append(l.events, ev)
	}
	if err := l.events[l.marks].Record(l.s); err != nil {
		return err
	}
	l.marks++
	return nil
}

func (s deviceStream) elapsed() ([]time.Duration, error) {
	l := s.l
	var out []time.Duration
	for i := 0; i+1 < l.marks; i++ {
		d, err := l.events[i].Elapsed(l.events[i+1])
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// pinned allocates page-locked host memory (pinner).
func (b *deviceBackend) pinned(n int64) ([]byte, func() error, error) {
	h, err := b.d.c.AllocHost(n)
	if err != nil {
		return nil, nil, err
	}
	return h.Bytes(), h.Free, nil
}
