package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/costs"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchBoundCmd) }

func newBenchBoundCmd() *cobra.Command {
	var samplesFile, overheads string
	var o costs.BoundOptions
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
			samples, err := costs.ReadSamples(samplesFile)
			if err != nil {
				return err
			}
			if o.AloneWorkers == 0 {
				o.AloneWorkers = o.CPUWorkers + 2
			}
			if o.CPUWorkers < 1 || o.AloneWorkers < 1 || o.GPURate <= 0 || o.CPURate < 0 {
				return usageError{errors.New("bench bound: --cpu-workers, --cpu-alone-workers and --gpu-rate must be positive, --cpu-rate not negative")}
			}
			for _, s := range splitList(overheads) {
				d, err := time.ParseDuration(s)
				if err != nil || d < 0 {
					return usageError{fmt.Errorf("bench bound: bad overhead %q", s)}
				}
				o.Overheads = append(o.Overheads, d)
			}
			rep, err := costs.Bound(samples, o)
			if err != nil {
				return err
			}
			return writeJSON(os.Stdout, rep)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&samplesFile, "samples", "", "measured samples (bench fit --samples)")
	fl.IntVar(&o.CPUWorkers, "cpu-workers", 14, "CPU workers (the scheduler's, under hybrid)")
	fl.Float64Var(&o.GPURate, "gpu-rate", 0, "queries a second the GPU alone sustains on this mix (required)")
	fl.Float64Var(&o.CPURate, "cpu-rate", 0, "queries a second the CPU alone sustains on this mix: adds the overhead that matches it")
	fl.IntVar(&o.AloneWorkers, "cpu-alone-workers", 0, "the CPU workers of --cpu-rate's run (0: --cpu-workers + 2, as the scheduler runs the CPU alone on every core)")
	fl.StringVar(&overheads, "overhead", "0s", "comma-separated CPU overheads per query")
	fl.Bool("json", true, "print JSON (always on)")
	cmd.MarkFlagRequired("samples")
	cmd.MarkFlagRequired("gpu-rate")
	return cmd
}
