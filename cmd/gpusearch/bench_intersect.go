package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/query/intersect"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchIntersectCmd) }

// benchIntersectFlags are bench intersect's flags.
type benchIntersectFlags struct {
	maxLen   int
	universe uint32
	minTime  time.Duration
	seed     uint64
	json     bool
	engine   string
	device   int
}

// intersectBenchRow is one algorithm on one list shape.
type intersectBenchRow struct {
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

func newBenchIntersectCmd() *cobra.Command {
	var f benchIntersectFlags
	cmd := &cobra.Command{
		Use:   "intersect [flags]",
		Short: "List intersection algorithms on random list pairs and triples: ns per element of the shortest list",
		Long: `Draws random sorted lists shaped as in the intersection report: the
shortest list has 100, 1,000, ... elements up to --max-len, the others are
1, 10, 100 or 1000 times longer (never past --max-len), as pairs and as
triples. Docids are drawn below --universe, by default four times the
longest list, so that the longest lists are as dense as a frequent term's
and a pair's intersection holds about a quarter of the shorter list. Each algorithm repeats until --min-time
has passed. "hash" and "bitmap" probe tables built ahead, as an index would
store them; "hash+build" and "bitmap+build" include building the tables of
the longer lists on every repetition.

With --engine gpu the lists and tables are copied to the GPU once per
shape (not timed) and the GPU's algorithms run there (gpu-svs and gpu-adp:
the report's coarse-grained SVS and ADP, 32 candidates a thread, with the
exact start; gpu-hash, gpu-bitmap: a thread per candidate): the wall time
of a run includes launching, synchronizing and copying the result back,
and device_ns_per_elem is the kernels' time alone. Every GPU result is
checked against the CPU's merge.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch f.engine {
			case "cpu", "gpu":
			default:
				return usagef("bench intersect: --engine must be cpu or gpu")
			}
			return runBenchIntersect(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.maxLen, "max-len", 1_000_000, "longest list (10000000 for the report's largest)")
	fl.Uint32Var(&f.universe, "universe", 0, "docids are drawn below this (0: four times the longest list of each shape)")
	fl.DurationVar(&f.minTime, "min-time", 50*time.Millisecond, "least time per algorithm and shape")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed")
	fl.BoolVar(&f.json, "json", false, "print JSON")
	fl.StringVar(&f.engine, "engine", "cpu", "cpu (query/intersect) or gpu (the GPU's algorithms; cuda builds)")
	fl.IntVar(&f.device, "device", 0, "CUDA device ordinal (engine gpu)")
	return cmd
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

func runBenchIntersect(ctx context.Context, f benchIntersectFlags) error {
	if f.maxLen < 100 || (f.universe != 0 && uint64(f.maxLen) > uint64(f.universe)) || f.maxLen > 1<<30 {
		return usagef("bench intersect: --max-len must be at least 100 and at most --universe and 2^30")
	}
	algs := intersectAlgorithms
	if f.engine == "gpu" {
		x, err := gpu.NewIntersector(gpu.DeviceOptions{Ordinal: f.device})
		if err != nil {
			return err
		}
		defer x.Close()
		algs = gpuIntersectAlgorithms(x)
	}
	rng := rand.New(rand.NewPCG(f.seed, 0x243f6a8885a308d3))
	var rows []intersectBenchRow
	for short := 100; short <= f.maxLen; short *= 10 {
		for _, ratio := range []int{1, 10, 100, 1000} {
			long := short * ratio
			if long > f.maxLen {
				break
			}
			universe := f.universe
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
						return err
					}
					r, err := timeIntersect(alg, lists, ratio, f.minTime)
					if err != nil {
						return err
					}
					rows = append(rows, r)
					fmt.Fprintf(os.Stderr, "bench intersect: %v %s %.2f ns/elem (cpu %.2f, device %.2f)\n", r.Lengths, alg.name, r.NsPerElem, r.CPUNs, r.DeviceNs)
				}
			}
		}
	}
	if f.json {
		return writeJSON(os.Stdout, struct {
			Results []intersectBenchRow `json:"results"`
		}{rows})
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "lengths\tratio\talgorithm\tns/elem\tcpu ns/elem\tdevice ns/elem\tresult\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%v\t%d\t%s\t%.2f\t%.2f\t%.2f\t%d\t\n", r.Lengths, r.Ratio, r.Algorithm, r.NsPerElem, r.CPUNs, r.DeviceNs, r.Result)
	}
	return tw.Flush()
}

// timeIntersect repeats one algorithm on lists until minTime has passed,
// in batches of at least a millisecond so that reading the clocks costs
// nothing against short runs.
func timeIntersect(alg intersectAlgorithm, lists [][]uint32, ratio int, minTime time.Duration) (intersectBenchRow, error) {
	row := intersectBenchRow{Ratio: ratio, Algorithm: alg.name}
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
		c0, start := threadCPU(), time.Now()
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
		cpu += threadCPU() - c0
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
