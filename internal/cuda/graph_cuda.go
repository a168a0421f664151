//go:build cuda

package cuda

/*
#include <cuda.h>
#include <stdlib.h>
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"slices"
	"unsafe"

	"gorgonia.org/cu"
)

// maxGraphs bounds the executable graphs a Graph keeps: past it, all are
// dropped and made again as they are met.
const maxGraphs = 64

// Graph records a sequence of kernel launches and memsets meant for one
// stream and queues it as one CUDA graph (Flush). A chain of launches
// then costs the driver one graph launch instead of one launch each, and
// the device runs the kernels back to back. The executable graph of each
// shape (the sequence of kernels and memsets) is kept and patched in place
// with the next sequence of that shape: its grids, arguments, addresses
// and sizes. Only the nodes whose parameters differ from the last run of
// that graph are patched, so a caller that keeps its regions and sizes
// from run to run pays for no patch. A patch the driver refuses (a memset
// grown past what its node was made for) makes that graph again. gorgonia.org/cu v0.9.6 has
// graphs but no executable-graph patching or launch, hence this cgo.
//
// When the driver refuses a graph (to make, patch or launch), Flush
// queues the operations one by one instead, then and from then on, and
// Broken says why.
//
// A Graph is used by one goroutine at a time, inside Do or DoShared.
type Graph struct {
	broken error
	ops    []graphOp
	args   []uint64 // the ops' kernel arguments, end to end
	key    []byte   // the ops' shape
	execs  map[string]*graphExec
	cargs  unsafe.Pointer // C memory: one op's arguments, then pointers to them
	ncargs int            // arguments cargs has room for
	ctx    C.CUcontext
}

// graphOp is a recorded launch (fn set) or memset.
type graphOp struct {
	fn          C.CUfunction
	grid, block int
	arg0, nargs int // the launch's arguments in Graph.args
	dst         uint64
	v           uint32
	n           int64
}

// graphExec is an executable graph with the graph it was made from, whose
// nodes (in the order of the ops) name what a patch updates, and the
// operations and arguments it last ran with.
type graphExec struct {
	graph C.CUgraph
	exec  C.CUgraphExec
	nodes []C.CUgraphNode
	ops   []graphOp
	args  []uint64
}

// same reports whether op i of g has the parameters that e last ran with.
func (e *graphExec) same(g *Graph, i int) bool {
	a, b := &g.ops[i], &e.ops[i]
	if a.fn != b.fn || a.grid != b.grid || a.block != b.block || a.dst != b.dst || a.v != b.v || a.n != b.n ||
		a.nargs != b.nargs {
		return false
	}
	return slices.Equal(g.args[a.arg0:a.arg0+a.nargs], e.args[b.arg0:b.arg0+b.nargs])
}

// remember records g's operations as what e last ran with.
func (e *graphExec) remember(g *Graph) {
	e.ops = append(e.ops[:0], g.ops...)
	e.args = append(e.args[:0], g.args...)
}

// NewGraph returns an empty Graph.
func NewGraph() *Graph { return &Graph{execs: map[string]*graphExec{}} }

// cfunc is fn's driver handle: cu.Function is a struct of that one field.
func cfunc(fn cu.Function) C.CUfunction { return *(*C.CUfunction)(unsafe.Pointer(&fn)) }

// cstream is s's driver handle: cu.Stream is a struct of that one field.
func cstream(s cu.Stream) C.CUstream { return *(*C.CUstream)(unsafe.Pointer(&s)) }

// Launch records a launch of m's kernel, as Module.Launch would queue it.
func (g *Graph) Launch(m *Module, kernel string, grid, block int, args ...uint64) error {
	fn, ok := m.fns[kernel]
	if !ok {
		return fmt.Errorf("%w: no kernel %s", ErrBadPTX, kernel)
	}
	op := graphOp{fn: cfunc(fn), grid: grid, block: block, arg0: len(g.args), nargs: len(args)}
	g.ops = append(g.ops, op)
	g.args = append(g.args, args...)
	g.key = append(g.key, 'k')
	g.key = binary.LittleEndian.AppendUint64(g.key, uint64(uintptr(unsafe.Pointer(op.fn))))
	g.key = binary.LittleEndian.AppendUint32(g.key, uint32(block))
	return nil
}

// Memset32 records setting n 32-bit words from device address dst to v,
// as Stream.Memset32 would queue it.
func (g *Graph) Memset32(dst uint64, v uint32, n int64) error {
	if n == 0 {
		return nil
	}
	g.ops = append(g.ops, graphOp{dst: dst, v: v, n: n})
	g.key = append(g.key, 'm')
	return nil
}

// Len is the number of operations recorded since the last Flush.
func (g *Graph) Len() int { return len(g.ops) }

// Flush queues the recorded operations on s as one graph and starts a
// new record; nothing recorded queues nothing. It runs inside Do.
func (g *Graph) Flush(s Stream) error {
	if len(g.ops) == 0 {
		return nil
	}
	defer g.Reset()
	if g.broken == nil {
		if g.broken = g.launchGraph(s); g.broken == nil {
			return nil
		}
	}
	return g.launchEach(s)
}

// Broken is why the driver refused a graph, after which every Flush
// queues its operations one by one; nil while graphs work.
func (g *Graph) Broken() error { return g.broken }

// launchEach queues the recorded operations one by one.
func (g *Graph) launchEach(s Stream) error {
	st := cstream(s.s)
	for i := range g.ops {
		op := &g.ops[i]
		if op.fn == nil {
			if r := C.cuMemsetD32Async(C.CUdeviceptr(op.dst), C.uint(op.v), C.size_t(op.n), st); r != C.CUDA_SUCCESS {
				return cudaError(fmt.Sprintf("memset %d words", op.n), r)
			}
			continue
		}
		p := g.kernelParams(op)
		if r := C.cuLaunchKernel(p._func, p.gridDimX, 1, 1, p.blockDimX, 1, 1, 0, st, p.kernelParams, nil); r != C.CUDA_SUCCESS {
			return cudaError(fmt.Sprintf("launch (%d x %d)", op.grid, op.block), r)
		}
	}
	return nil
}

// launchGraph queues the recorded operations as the executable graph of
// their shape, patched or made.
func (g *Graph) launchGraph(s Stream) error {
	if g.ctx == nil {
		if r := C.cuCtxGetCurrent(&g.ctx); r != C.CUDA_SUCCESS {
			return cudaError("current context", r)
		}
	}
	e := g.execs[string(g.key)]
	if e != nil && g.patch(e) != nil {
		delete(g.execs, string(g.key))
		if err := e.destroy(); err != nil {
			return err
		}
		e = nil
	}
	if e == nil {
		if len(g.execs) >= maxGraphs {
			if err := g.drop(); err != nil {
				return err
			}
		}
		var err error
		if e, err = g.build(); err != nil {
			return err
		}
		g.execs[string(g.key)] = e
	}
	if r := C.cuGraphLaunch(e.exec, cstream(s.s)); r != C.CUDA_SUCCESS {
		return cudaError("graph launch", r)
	}
	return nil
}

// Reset drops the record without queuing it.
func (g *Graph) Reset() { g.ops, g.args, g.key = g.ops[:0], g.args[:0], g.key[:0] }

// Close frees the executable graphs. It runs inside Do.
func (g *Graph) Close() error {
	err := g.drop()
	if g.cargs != nil {
		C.free(g.cargs)
		g.cargs, g.ncargs = nil, 0
	}
	return err
}

// drop destroys every executable graph.
func (g *Graph) drop() error {
	var first error
	for k, e := range g.execs {
		if err := e.destroy(); err != nil && first == nil {
			first = err
		}
		delete(g.execs, k)
	}
	return first
}

// kernelParams fills the driver's description of launch op, its
// arguments copied to C memory (the driver copies them again when it
// takes the description).
func (g *Graph) kernelParams(op *graphOp) C.CUDA_KERNEL_NODE_PARAMS {
	if op.nargs > g.ncargs {
		if g.cargs != nil {
			C.free(g.cargs)
		}
		g.ncargs = max(op.nargs, 16)
		g.cargs = C.malloc(C.size_t(16 * g.ncargs))
	}
	vals := unsafe.Slice((*uint64)(g.cargs), op.nargs)
	ptrs := unsafe.Slice((*unsafe.Pointer)(unsafe.Add(g.cargs, 8*g.ncargs)), op.nargs)
	for i := range op.nargs {
		vals[i] = g.args[op.arg0+i]
		ptrs[i] = unsafe.Pointer(&vals[i])
	}
	var p C.CUDA_KERNEL_NODE_PARAMS
	p._func = op.fn
	p.gridDimX, p.gridDimY, p.gridDimZ = C.uint(op.grid), 1, 1
	p.blockDimX, p.blockDimY, p.blockDimZ = C.uint(op.block), 1, 1
	if op.nargs > 0 {
		p.kernelParams = (*unsafe.Pointer)(unsafe.Add(g.cargs, 8*g.ncargs))
	}
	return p
}

// memsetParams is the driver's description of memset op.
func memsetParams(op *graphOp) C.CUDA_MEMSET_NODE_PARAMS {
	var p C.CUDA_MEMSET_NODE_PARAMS
	p.dst = C.CUdeviceptr(op.dst)
	p.value = C.uint(op.v)
	p.elementSize = 4
	p.width = C.size_t(op.n)
	p.height = 1
	return p
}

// build makes the graph of the recorded operations, a chain, and its
// executable graph.
func (g *Graph) build() (*graphExec, error) {
	e := &graphExec{nodes: make([]C.CUgraphNode, len(g.ops))}
	if r := C.cuGraphCreate(&e.graph, 0); r != C.CUDA_SUCCESS {
		return nil, cudaError("graph create", r)
	}
	for i := range g.ops {
		op := &g.ops[i]
		var dep *C.CUgraphNode
		var ndep C.size_t
		if i > 0 {
			dep, ndep = &e.nodes[i-1], 1
		}
		var r C.CUresult
		if op.fn != nil {
			p := g.kernelParams(op)
			r = C.cuGraphAddKernelNode(&e.nodes[i], e.graph, dep, ndep, &p)
		} else {
			p := memsetParams(op)
			r = C.cuGraphAddMemsetNode(&e.nodes[i], e.graph, dep, ndep, &p, g.ctx)
		}
		if r != C.CUDA_SUCCESS {
			e.destroy()
			return nil, cudaError("graph node", r)
		}
	}
	if r := C.cuGraphInstantiateWithFlags(&e.exec, e.graph, 0); r != C.CUDA_SUCCESS {
		e.destroy()
		return nil, cudaError("graph instantiate", r)
	}
	e.remember(g)
	return e, nil
}

// patch sets the recorded operations' parameters on e, whose shape they
// have, where they differ from those of e's last run.
func (g *Graph) patch(e *graphExec) error {
	for i := range g.ops {
		if e.same(g, i) {
			continue
		}
		op := &g.ops[i]
		var r C.CUresult
		if op.fn != nil {
			p := g.kernelParams(op)
			r = C.cuGraphExecKernelNodeSetParams(e.exec, e.nodes[i], &p)
		} else {
			p := memsetParams(op)
			r = C.cuGraphExecMemsetNodeSetParams(e.exec, e.nodes[i], &p, g.ctx)
		}
		if r != C.CUDA_SUCCESS {
			return cudaError("graph patch", r)
		}
	}
	e.remember(g)
	return nil
}

// destroy frees e's executable graph and graph.
func (e *graphExec) destroy() error {
	var first error
	if e.exec != nil {
		if r := C.cuGraphExecDestroy(e.exec); r != C.CUDA_SUCCESS {
			first = cudaError("graph exec destroy", r)
		}
		e.exec = nil
	}
	if e.graph != nil {
		if r := C.cuGraphDestroy(e.graph); r != C.CUDA_SUCCESS && first == nil {
			first = cudaError("graph destroy", r)
		}
		e.graph = nil
	}
	return first
}

// cudaError is a failed driver call as an error.
func cudaError(what string, r C.CUresult) error {
	return fmt.Errorf("gpu: %s: CUDA error %d", what, int(r))
}
