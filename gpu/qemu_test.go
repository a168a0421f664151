//go:build !cuda

package gpu

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// emuBackend is a backend whose device is testdata/qemu/server.cpp: the
// kernels of decode.cu and query.cu compiled for the CPU under an
// emulation of CUDA, in a child process. Device pointers are that
// process's addresses, so a kernel that strays out of its buffers
// corrupts or crashes the child (or, with GPUSEARCH_EMU_ASAN=1, is
// reported by AddressSanitizer), and the test fails.
type emuBackend struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	w   *bufio.Writer
	r   *bufio.Reader
}

// emuServer is the device server, compiled once per test binary.
var emuServer struct {
	once     sync.Once
	dir, bin string
	err      error
}

// buildEmu returns the device server, testdata/qemu/server.cpp with the
// kernels of decode.cu and query.cu, compiled on the first call into a
// directory that TestMain removes.
func buildEmu(t *testing.T) string {
	t.Helper()
	s := &emuServer
	s.once.Do(func() {
		if s.dir, s.err = os.MkdirTemp("", "gpusearch-qemu-"); s.err == nil {
			s.bin = filepath.Join(s.dir, "qserver")
			s.err = compileEmu("testdata/qemu/server.cpp", s.bin, "testdata/qemu", "kernels")
		}
	})
	checkEmu(t, s.err)
	return s.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if emuServer.dir != "" {
		os.RemoveAll(emuServer.dir)
	}
	os.Exit(code)
}

// errNoCXX is compileEmu's error without a C++ compiler.
var errNoCXX = errors.New("no C++ compiler")

// compileEmu compiles the C++ source src, which includes qemu.h, into bin
// with the include directories given; without a C++20 compiler ($CXX,
// else c++) it fails with errNoCXX. GPUSEARCH_EMU_ASAN=1 adds
// AddressSanitizer.
func compileEmu(src, bin string, include ...string) error {
	cxx := os.Getenv("CXX")
	if cxx == "" {
		cxx = "c++"
	}
	if _, err := exec.LookPath(cxx); err != nil {
		return fmt.Errorf("%w as %s: %v", errNoCXX, cxx, err)
	}
	args := []string{"-std=c++20", "-O1", "-ffp-contract=off", "-w", "-o", bin, src}
	for _, dir := range include {
		args = append(args, "-I", dir)
	}
	if os.Getenv("GPUSEARCH_EMU_ASAN") != "" {
		args = append(args, "-g", "-fsanitize=address")
	}
	if out, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("compiling the kernels for the emulation: %v\n%s", err, out)
	}
	return nil
}

// checkEmu skips the test when err is errNoCXX and fails it on any other
// error.
func checkEmu(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, errNoCXX) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func startEmu(t *testing.T, bin string) *emuBackend {
	t.Helper()
	cmd := exec.Command(bin)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := &emuBackend{cmd: cmd, in: in, w: bufio.NewWriter(in), r: bufio.NewReader(out)}
	t.Cleanup(func() {
		b.in.Close()
		b.cmd.Wait()
	})
	return b
}

// call sends one request and reads its status and n reply bytes.
func (b *emuBackend) call(n int, req ...any) ([]byte, error) {
	for _, v := range req {
		var err error
		if s, ok := v.([]byte); ok {
			_, err = b.w.Write(s)
		} else {
			err = binary.Write(b.w, binary.LittleEndian, v)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := b.w.Flush(); err != nil {
		return nil, fmt.Errorf("emulator: %w", err)
	}
	status, err := b.r.ReadByte()
	if err != nil {
		return nil, fmt.Errorf("emulator died: %w", err)
	}
	if status != 0 {
		return nil, fmt.Errorf("emulator: request %c failed with status %d", req[0], status)
	}
	out := make([]byte, n)
	if _, err := io.ReadFull(b.r, out); err != nil {
		return nil, fmt.Errorf("emulator died: %w", err)
	}
	return out, nil
}

func (b *emuBackend) alloc(size int64) (devPtr, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out, err := b.call(8, byte('A'), uint64(size))
	if err != nil {
		return 0, err
	}
	return devPtr(binary.LittleEndian.Uint64(out)), nil
}

func (b *emuBackend) free(p devPtr) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, err := b.call(0, byte('F'), uint64(p))
	return err
}

func (b *emuBackend) upload(p devPtr, src []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return emuStream{b}.upload(p, src)
}

func (b *emuBackend) run(_ int, f func(s stream) error) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return f(emuStream{b})
}

func (b *emuBackend) multiprocessors() int { return 1 }

type emuStream struct{ b *emuBackend }

func (s emuStream) upload(p devPtr, src []byte) error {
	_, err := s.b.call(0, byte('W'), uint64(p), uint64(len(src)), src)
	return err
}

func (s emuStream) memset32(p devPtr, v uint32, n int64) error {
	_, err := s.b.call(0, byte('M'), uint64(p), v, uint64(n))
	return err
}

func (s emuStream) launch(kernel string, grid, block int, args ...uint64) error {
	_, err := s.b.call(0, byte('L'), uint32(len(kernel)), []byte(kernel), uint32(grid), uint32(block), uint32(len(args)), args)
	if err != nil {
		return fmt.Errorf("launch %s: %w", kernel, err)
	}
	return nil
}

func (s emuStream) download(dst []byte, p devPtr) error {
	out, err := s.b.call(len(dst), byte('R'), uint64(p), uint64(len(dst)))
	copy(dst, out)
	return err
}

func (s emuStream) mark() error { return nil }

func (s emuStream) elapsed() ([]time.Duration, error) { return nil, nil }

// emuEngine opens spec's collection and a query engine on it over a new
// emulator process (bin), released when the test ends.
func emuEngine(t *testing.T, bin string, spec corpusSpec) (*qengine, *index.Index) {
	t.Helper()
	ix := openCorpus(t, spec)
	e, err := newQEngine(ix, startEmu(t, bin))
	if err != nil {
		t.Fatalf("newQEngine: %v", err)
	}
	t.Cleanup(func() { e.release() })
	return e, ix
}

func TestQueryEngineEmulated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the kernels under a C++ emulation")
	}
	bin := buildEmu(t)
	specs := []corpusSpec{
		{Docs: 3000, Vocab: 200, Zipf: 1.1, Density: 0.6, Codec: "gpu-bp256", Seed: 1},
		{Docs: 2500, Vocab: 150, Zipf: 0.9, Density: 0.5, Codec: "gpu-vbyte1024", Seed: 2},
		{Docs: 2000, Vocab: 150, Zipf: 1.0, Density: 0.5, Codec: "bp128", Seed: 3},
		{Docs: 1500, Vocab: 100, Zipf: 1.0, Density: 0.5, Codec: "gpu-pfordelta", Seed: 4},
		{Docs: 1200, Vocab: 80, Zipf: 1.0, Density: 0.5, Codec: "gpu-rice", Seed: 5},
		{Docs: 1200, Vocab: 80, Zipf: 1.0, Density: 0.5, Codec: "gpu-vbyte128", Seed: 6},
	}
	for _, spec := range specs {
		t.Run(spec.Codec, func(t *testing.T) {
			e, ix := emuEngine(t, bin, spec)
			if want := spec.Codec == "bp128"; e.reencoded != want {
				t.Errorf("reencoded = %v, want %v", e.reencoded, want)
			}
			checkEngine(t, e, ix, randomQueries(rand.New(rand.NewPCG(spec.Seed, 5)), 45, spec.Vocab))
		})
	}
	// Random collections of several spans, sparse to dense, and some
	// queries asking for 1,000 results.
	for seed := uint64(20); seed < 24; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		spec := corpusSpec{Docs: 2000 + rng.IntN(4*orSpan), Vocab: 30 + rng.IntN(200), Zipf: 0.8 + 0.5*rng.Float64(),
			Density: 0.02 + 0.8*rng.Float64(), Codec: "gpu-bp256", Seed: seed}
		t.Run(fmt.Sprintf("random-%d", seed), func(t *testing.T) {
			e, ix := emuEngine(t, bin, spec)
			qs := randomQueries(rng, 24, spec.Vocab)
			for i := range qs {
				if i%5 == 0 {
					qs[i].K = 1000
				}
			}
			checkEngine(t, e, ix, qs)
		})
	}
	// OR waves over several spans of or_span_wave, with a list of over 32
	// blocks, so that find_row narrows in more than one step.
	t.Run("spans", func(t *testing.T) {
		spec := corpusSpec{Docs: 3*orSpan + 500, Vocab: 12, Zipf: 1, Density: 0.95, Codec: "gpu-bp256", Seed: 7}
		e, ix := emuEngine(t, bin, spec)
		if info, _ := ix.Lookup(termName(1)); info.NumBlocks(ix.BlockSize()) <= 32 {
			t.Fatalf("the longest list has %d blocks, want over 32", info.NumBlocks(ix.BlockSize()))
		}
		qs := []query.Query{
			{Terms: []string{termName(1), termName(7)}, Mode: query.Or, K: 10},
			{Terms: []string{termName(12), termName(2), termName(12)}, Mode: query.Or, K: 3},
			{Terms: []string{termName(5)}, Mode: query.Or, K: 1000},
		}
		checkEngine(t, e, ix, qs)
	})
	// Batches from more callers at once than the engine has workspaces:
	// each prepares its batch in its own workspace while another's runs,
	// the others wait for one, and every answer must still be the
	// exhaustive scorer's. A caller that waits for a workspace stops when
	// its context is done.
	t.Run("concurrent", func(t *testing.T) {
		spec := corpusSpec{Docs: 3000, Vocab: 40, Zipf: 1.1, Density: 0.05, Codec: "gpu-bp256", Seed: 8}
		e, ix := emuEngine(t, bin, spec)
		checkConcurrent(t, e, ix, workspaces+2, 1, 6, spec)
		var held []*workspace
		for range workspaces {
			held = append(held, <-e.spare)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		q := query.Query{Terms: []string{termName(1)}, Mode: query.Or, K: 10}
		if _, _, err := e.search(ctx, []query.Query{q}, false); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("search with every workspace taken = %v, want context.DeadlineExceeded", err)
		}
		for _, ws := range held {
			e.spare <- ws
		}
	})
	// The max-tree top-k on OR queries, over more than one run of groups.
	t.Run("tree", func(t *testing.T) {
		spec := corpusSpec{Docs: 270000, Vocab: 30, Zipf: 1.2, Density: 0.02, Codec: "gpu-bp256", Seed: 6}
		e, ix := emuEngine(t, bin, spec)
		e.topk = TopKTree
		var qs []query.Query
		for _, q := range randomQueries(rand.New(rand.NewPCG(6, 6)), 9, spec.Vocab) {
			if q.Mode != query.And {
				qs = append(qs, q)
			}
		}
		checkEngine(t, e, ix, qs)
	})
}

// TestTopKRefineEmulated: over 4096 documents tie on the top score, so the
// top-k needs the radix rounds past the first, in place (one query) and
// by running the query again alone (in a batch). With 1,500 documents,
// a query alone's one-CTA top-k splits its boundary bin (over
// CTA_SUB_MIN keys) and sorts what is left.
func TestTopKRefineEmulated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the kernels under a C++ emulation")
	}
	bin := buildEmu(t)
	for _, docs := range []int{9000, 1500} {
		t.Run(fmt.Sprint(docs), func(t *testing.T) {
			e, ix := emuEngine(t, bin, corpusSpec{Docs: docs, Vocab: 20, Zipf: 1, Density: 0.2, Codec: "gpu-bp256", Seed: 9,
				Ties: true})
			// Each query four times, for checkEngine's four settings.
			var qs []query.Query
			for _, q := range []query.Query{
				{Terms: []string{termName(1)}, Mode: query.Or, K: 10},
				{Terms: []string{termName(2), termName(1)}, Mode: query.And, K: 5000},
				{Terms: []string{termName(2), termName(1)}, Mode: query.And, K: 10},
				{Terms: []string{termName(2)}, Mode: query.AndOr, K: 7},
			} {
				qs = append(qs, q, q, q, q)
			}
			checkEngine(t, e, ix, qs)
		})
	}
}

func TestIntersectEmulated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the kernels under a C++ emulation")
	}
	be := startEmu(t, buildEmu(t))
	checkIntersect(t, func(lists [][]uint32) (func(string) ([]uint32, error), func(), error) {
		l, err := uploadIntersect(be, lists)
		if err != nil {
			return nil, nil, err
		}
		run := func(alg string) ([]uint32, error) {
			out, _, err := l.intersect(alg, 3)
			return out, err
		}
		return run, func() { l.free() }, nil
	})
	l, err := uploadIntersect(be, [][]uint32{{1, 2}, {2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer l.free()
	if _, _, err := l.intersect("zigzag", 3); err == nil {
		t.Error("unknown algorithm: want an error")
	}
}

func TestEmuBackendRejects(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the kernels under a C++ emulation")
	}
	b := startEmu(t, buildEmu(t))
	p, err := b.alloc(64)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.upload(p+32, make([]byte, 512)); err == nil {
		t.Errorf("upload past an allocation succeeded")
	}
	err = b.run(0, func(s stream) error { return s.launch("no_such_kernel", 1, 32) })
	if err == nil || errors.Is(err, io.EOF) {
		t.Errorf("launch of an unknown kernel = %v, want a status error", err)
	}
}
