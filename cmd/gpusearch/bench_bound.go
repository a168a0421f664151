package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/costs"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchBoundCmd) }

func newBenchBoundCmd() *cobra.Command {
	var f costs.BoundFlags
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
			if err := f.Complete(); err != nil {
				return usageError{err}
			}
			rep, err := f.Run()
			if err != nil {
				return err
			}
			return writeJSON(os.Stdout, rep)
		},
	}
	f.AddFlags(cmd.Flags())
	cmd.Flags().Bool("json", true, "print JSON (always on)")
	cmd.MarkFlagRequired("samples")
	cmd.MarkFlagRequired("gpu-rate")
	return cmd
}
