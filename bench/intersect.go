package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/gpusearch/gpusearch/bench/latency"
	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/query/intersect"
)

// IntersectOptions are bench intersect's settings.
type IntersectOptions struct {
	MaxLen   int           // longest list
	Universe uint32        // docids are drawn below it (0: four times the longest list of each shape)
	MinTime  time.Duration // least time per algorithm and shape
	Seed     uint64
	GPU      bool // the GPU's algorithms instead of query/intersect's
	Device   int  // CUDA device ordinal, with GPU
	Progress io.Writer
}

// IntersectReport is what bench intersect --json prints.
type IntersectReport struct {
	Results []IntersectRow `json:"results"`
}

// IntersectRow is one algorithm on one list shape.
type IntersectRow struct {
	Lengths   []int   `json:"lengths"` // shortest first
	Ratio     int     `json:"ratio"`   // longer lists' length over the shortest's
	Algorithm string  `json:"algorithm"`
	NsPerElem float64 `json:"ns_per_elem"`     // wall time per element of the shortest list
	CPUNs     float64 `json:"cpu_ns_per_elem"` // thread CPU time per element of the shortest list
	// DeviceNs is the GPU's kernel time per element of the shortest list
	// (engine gpu: CUDA events around the kernels; the wall time adds the
	// launches, the synchronization and the copy of the result).
	DeviceNs float64 `json:"device_ns_per_elem,omitempty"`
	Result   int     `json:"result"` // docids in the intersection
	Reps     int     `json:"reps"`
}

// Intersect times every intersection algorithm on random sorted lists:
// the shortest of 100, 1,000, ... elements up to MaxLen, the others 1,
// 10, 100 or 1000 times longer (never past MaxLen), as pairs and triples.
func Intersect(ctx context.Context, o IntersectOptions) (*IntersectReport, error) {
	algs := intersectAlgorithms
	if o.GPU {
		x, err := gpu.NewIntersector(gpu.DeviceOptions{Ordinal: o.Device})
		if err != nil {
			return nil, err
		}
		defer x.Close()
		algs = gpuIntersectAlgorithms(x)
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x243f6a8885a308d3))
	rep := &IntersectReport{}
	for short := 100; short <= o.MaxLen; short *= 10 {
		for _, ratio := range []int{1, 10, 100, 1000} {
			long := short * ratio
			if long > o.MaxLen {
				break
			}
			universe := o.Universe
			if universe == 0 {
				universe = uint32(4 * long)
			}
			for _, k := range []int{2, 3} {
				lists := [][]uint32{randomSortedList(rng, short, universe)}
				for range k - 1 {
					lists = append(lists, randomSortedList(rng, long, universe))
				}
				// Drawn lengths vary a little: the shortest goes first.
				sort.SliceStable(lists, func(i, j int) bool { return len(lists[i]) < len(lists[j]) })
				for _, alg := range algs {
					if err := ctx.Err(); err != nil {
						return nil, err
					}
					r, err := timeIntersect(alg, lists, ratio, o.MinTime)
					if err != nil {
						return nil, err
					}
					rep.Results = append(rep.Results, r)
					progress(o.Progress, "bench intersect: %v %s %.2f ns/elem (cpu %.2f, device %.2f)\n", r.Lengths, alg.name, r.NsPerElem, r.CPUNs, r.DeviceNs)
				}
			}
		}
	}
	return rep, nil
}

// Print writes the report as a table.
func (rep *IntersectReport) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "lengths\tratio\talgorithm\tns/elem\tcpu ns/elem\tdevice ns/elem\tresult\t")
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "%v\t%d\t%s\t%.2f\t%.2f\t%.2f\t%d\t\n", r.Lengths, r.Ratio, r.Algorithm, r.NsPerElem, r.CPUNs, r.DeviceNs, r.Result)
	}
	return tw.Flush()
}

// progress writes a progress line to w unless it is nil.
func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

// intersectAlgorithm intersects lists (shortest first) into dst, with
// tables built ahead by prepare when it is set. A GPU algorithm also
// reports the device time of each run, and releases what prepare made.
type intersectAlgorithm struct {
	name    string
	prepare func(lists [][]uint32) (any, error)
	run     func(dst []uint32, lists [][]uint32, prepared any) ([]uint32, time.Duration, error)
	release func(prepared any)
}

// cpuAlgorithm adapts a query/intersect function.
func cpuAlgorithm(name string, prepare func([][]uint32) any, run func(dst []uint32, lists [][]uint32, prepared any) []uint32) intersectAlgorithm {
	a := intersectAlgorithm{name: name, run: func(dst []uint32, ls [][]uint32, p any) ([]uint32, time.Duration, error) {
		return run(dst, ls, p), 0, nil
	}}
	if prepare != nil {
		a.prepare = func(ls [][]uint32) (any, error) { return prepare(ls), nil }
	}
	return a
}

// gpuIntersectAlgorithms run on x's GPU, on lists uploaded once per shape.
func gpuIntersectAlgorithms(x *gpu.Intersector) []intersectAlgorithm {
	var algs []intersectAlgorithm
	for _, name := range gpu.IntersectAlgorithms {
		algs = append(algs, intersectAlgorithm{
			name: "gpu-" + name,
			prepare: func(ls [][]uint32) (any, error) {
				l, err := x.Upload(ls)
				if err != nil {
					return nil, err
				}
				// The GPU's answer must be the CPU's.
				got, _, err := l.Intersect(name)
				if err != nil {
					l.Free()
					return nil, err
				}
				if want := intersect.MergeAll(nil, ls...); !slices.Equal(got, want) {
					l.Free()
					return nil, fmt.Errorf("bench intersect: gpu-%s found %d docids, the CPU's merge %d", name, len(got), len(want))
				}
				return l, nil
			},
			run: func(dst []uint32, _ [][]uint32, p any) ([]uint32, time.Duration, error) {
				out, took, err := p.(*gpu.IntersectLists).Intersect(name)
				return append(dst, out...), took, err
			},
			release: func(p any) { p.(*gpu.IntersectLists).Free() },
		})
	}
	return algs
}

var intersectAlgorithms = []intersectAlgorithm{
	cpuAlgorithm("merge", nil, func(dst []uint32, ls [][]uint32, _ any) []uint32 { return intersect.MergeAll(dst, ls...) }),
	cpuAlgorithm("galloping", nil, func(dst []uint32, ls [][]uint32, _ any) []uint32 { return intersect.GallopingAll(dst, ls...) }),
	cpuAlgorithm("svs", nil, func(dst []uint32, ls [][]uint32, _ any) []uint32 { return intersect.SVS(dst, ls...) }),
	cpuAlgorithm("adp", nil, func(dst []uint32, ls [][]uint32, _ any) []uint32 { return intersect.ADP(dst, ls...) }),
	cpuAlgorithm("hash", hashTables, func(dst []uint32, ls [][]uint32, p any) []uint32 {
		return intersect.Hash(dst, ls[0], p.([]*intersect.HashTable)...)
	}),
	cpuAlgorithm("hash+build", nil, func(dst []uint32, ls [][]uint32, _ any) []uint32 {
		return intersect.Hash(dst, ls[0], hashTables(ls).([]*intersect.HashTable)...)
	}),
	cpuAlgorithm("bitmap", bitsets, func(dst []uint32, ls [][]uint32, p any) []uint32 {
		return intersect.Bitmap(dst, ls[0], p.([]*intersect.Bitset)...)
	}),
	cpuAlgorithm("bitmap+build", nil, func(dst []uint32, ls [][]uint32, _ any) []uint32 {
		return intersect.Bitmap(dst, ls[0], bitsets(ls).([]*intersect.Bitset)...)
	}),
}

func hashTables(ls [][]uint32) any {
	var out []*intersect.HashTable
	for _, l := range ls[1:] {
		out = append(out, intersect.NewHashTable(l))
	}
	return out
}

func bitsets(ls [][]uint32) any {
	var out []*intersect.Bitset
	for _, l := range ls[1:] {
		out = append(out, intersect.NewBitset(l))
	}
	return out
}

// timeIntersect repeats one algorithm on lists until minTime has passed,
// in batches of at least a millisecond so that reading the clocks costs
// nothing against short runs.
func timeIntersect(alg intersectAlgorithm, lists [][]uint32, ratio int, minTime time.Duration) (IntersectRow, error) {
	row := IntersectRow{Ratio: ratio, Algorithm: alg.name}
	for _, l := range lists {
		row.Lengths = append(row.Lengths, len(l))
	}
	var prepared any
	if alg.prepare != nil {
		var err error
		if prepared, err = alg.prepare(lists); err != nil {
			return row, err
		}
		if alg.release != nil {
			defer alg.release(prepared)
		}
	}
	dst := make([]uint32, 0, len(lists[0]))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var elapsed, cpu, device time.Duration
	for batch := 1; elapsed < minTime || row.Reps == 0; {
		c0, start := latency.ThreadCPU(), time.Now()
		for range batch {
			var took time.Duration
			var err error
			if dst, took, err = alg.run(dst[:0], lists, prepared); err != nil {
				return row, err
			}
			device += took
		}
		took := time.Since(start)
		elapsed += took
		cpu += latency.ThreadCPU() - c0
		row.Reps += batch
		if took < time.Millisecond {
			batch *= 2
		}
	}
	row.Result = len(dst)
	per := float64(row.Reps * len(lists[0]))
	row.NsPerElem = float64(elapsed.Nanoseconds()) / per
	row.CPUNs = float64(cpu.Nanoseconds()) / per
	row.DeviceNs = float64(device.Nanoseconds()) / per
	return row, nil
}

// randomSortedList draws about n distinct docids below universe, each
// docid kept with probability n/universe (geometric gaps), so that a list
// of 10^7 costs 10^7 draws, not a sort.
func randomSortedList(rng *rand.Rand, n int, universe uint32) []uint32 {
	p := float64(n) / float64(universe)
	out := make([]uint32, 0, n+n/8+16)
	if p >= 1 {
		for d := range universe {
			out = append(out, d)
		}
		return out
	}
	logq := math.Log1p(-p)
	for d := -1.0; ; {
		d += 1 + math.Floor(math.Log(1-rng.Float64())/logq)
		if d >= float64(universe) {
			return out
		}
		out = append(out, uint32(d))
	}
}
