package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/query/schedule"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchBoundCmd) }

// boundFlags are bench bound's options.
type boundFlags struct {
	samples, overheads string
	cpuWorkers, alone  int
	gpuRate, cpuRate   float64
}

// boundRow is the bound for one CPU overhead.
type boundRow struct {
	OverheadUS float64 `json:"overhead_us"`
	Calibrated bool    `json:"calibrated,omitempty"` // the overhead that matches --cpu-rate on --cpu-alone-workers
	schedule.BoundResult
	OverBetter float64 `json:"over_better"` // Rate over the better processor alone
	OverCPU    float64 `json:"over_cpu"`
}

func newBenchBoundCmd() *cobra.Command {
	var f boundFlags
	cmd := &cobra.Command{
		Use:   "bound --samples FILE --gpu-rate R",
		Short: "The highest rate any CPU/GPU split of the measured queries could sustain (schedule.Bound): what hybrid scheduling can reach at best",
		Long: `Bound reads the queries' measured costs (bench fit --samples: each query's
time on one CPU core and its share of a GPU batch) and computes the best
split of their mix between the CPU workers and the GPU, the optimum of the
linear program behind any scheduler: the queries cheapest on the CPU relative
to the GPU go to the CPU until both are equally busy. The GPU's costs are
scaled so that the GPU alone sustains --gpu-rate (measured by bench load
--policy gpu); each CPU query is charged its time plus an overhead, for each
of --overhead, and, with --cpu-rate (bench load --policy cpu's rate, on
--cpu-alone-workers workers), the overhead that makes the CPU alone sustain
that rate. It ignores queueing, batching and deadlines: a scheduler can only
come close to it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			samples, err := readSamples(f.samples)
			if err != nil {
				return err
			}
			if f.alone == 0 {
				f.alone = f.cpuWorkers + 2
			}
			if f.cpuWorkers < 1 || f.alone < 1 || f.gpuRate <= 0 || f.cpuRate < 0 {
				return usageError{errors.New("bench bound: --cpu-workers, --cpu-alone-workers and --gpu-rate must be positive, --cpu-rate not negative")}
			}
			var overheads []time.Duration
			for _, s := range splitList(f.overheads) {
				d, err := time.ParseDuration(s)
				if err != nil || d < 0 {
					return usageError{fmt.Errorf("bench bound: bad overhead %q", s)}
				}
				overheads = append(overheads, d)
			}
			rows, err := boundRows(samples, f, overheads)
			if err != nil {
				return err
			}
			return writeJSON(os.Stdout, map[string]any{"samples": len(samples), "cpu_workers": f.cpuWorkers, "gpu_rate": f.gpuRate,
				"cpu_rate": f.cpuRate, "bounds": rows})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.samples, "samples", "", "measured samples (bench fit --samples)")
	fl.IntVar(&f.cpuWorkers, "cpu-workers", 14, "CPU workers (the scheduler's, under hybrid)")
	fl.Float64Var(&f.gpuRate, "gpu-rate", 0, "queries a second the GPU alone sustains on this mix (required)")
	fl.Float64Var(&f.cpuRate, "cpu-rate", 0, "queries a second the CPU alone sustains on this mix: adds the overhead that matches it")
	fl.IntVar(&f.alone, "cpu-alone-workers", 0, "the CPU workers of --cpu-rate's run (0: --cpu-workers + 2, as the scheduler runs the CPU alone on every core)")
	fl.StringVar(&f.overheads, "overhead", "0s", "comma-separated CPU overheads per query")
	fl.Bool("json", true, "print JSON (always on)")
	cmd.MarkFlagRequired("samples")
	cmd.MarkFlagRequired("gpu-rate")
	return cmd
}

// boundRows computes the bound for each overhead, and for the one that
// matches --cpu-rate when it is given.
func boundRows(samples []schedule.Sample, f boundFlags, overheads []time.Duration) ([]boundRow, error) {
	calibrated := -1
	if f.cpuRate > 0 {
		calibrated = len(overheads)
		overheads = append(overheads, schedule.OverheadFor(samples, f.alone, f.cpuRate))
	}
	var rows []boundRow
	for i, o := range overheads {
		b, err := schedule.Bound(samples, schedule.BoundConfig{CPUWorkers: f.cpuWorkers, CPUOverhead: o, GPURate: f.gpuRate})
		if err != nil {
			return nil, err
		}
		rows = append(rows, boundRow{OverheadUS: float64(o) / float64(time.Microsecond), Calibrated: i == calibrated, BoundResult: b,
			OverBetter: b.Rate / max(b.CPUAlone, b.GPUAlone), OverCPU: b.Rate / b.CPUAlone})
	}
	return rows, nil
}
