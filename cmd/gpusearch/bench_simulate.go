package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/costs"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchSimulateCmd) }

func newBenchSimulateCmd() *cobra.Command {
	var f costs.SimulateFlags
	cmd := &cobra.Command{
		Use:   "simulate --samples FILE --model FILE",
		Short: "Replay measured query costs through the scheduler's queues in simulated time: the highest rate each policy sustains, no GPU needed",
		Long: `Simulate draws Poisson arrivals from the queries of a bench fit --samples
file (their measured CPU and GPU times are the actual costs, the model's
predictions what the queues see) and runs them through the same queues as the
scheduler (schedule.Simulate), doubling and then bisecting the rate to find
the highest one with no missed deadline, for each policy. The GPU takes
batches of up to --gpu-batch jobs, each batch costing --gpu-call plus its
jobs' GPU times (bench fit measures GPU times in such batches). Each CPU job
costs its measured time plus --cpu-overhead, which the model does not see
(what a query costs a loaded server beyond its time on one idle core; see
bench bound).`,
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
	cmd.MarkFlagRequired("model")
	return cmd
}
