package main

import (
	"errors"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/costs"
	"github.com/gpusearch/gpusearch/query/schedule"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchSimulateCmd) }

func newBenchSimulateCmd() *cobra.Command {
	var samplesFile, modelFile, policies string
	var o costs.SimulateOptions
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
			samples, err := costs.ReadSamples(samplesFile)
			if err != nil {
				return err
			}
			model, err := schedule.ReadModel(modelFile)
			if err != nil {
				return err
			}
			if o.Policies, err = parsePolicies(policies); err != nil {
				return err
			}
			if o.CPUWorkers < 1 || o.GPUBatch < 1 || o.Horizon <= 0 {
				return usageError{errors.New("--cpu-workers, --gpu-batch and --duration must be positive")}
			}
			return writeJSON(os.Stdout, costs.Simulate(samples, model, o))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&samplesFile, "samples", "", "measured samples (bench fit --samples)")
	fl.StringVar(&modelFile, "model", "", "cost model file the queues predict with (bench fit's cost-model.json)")
	fl.StringVar(&policies, "policy", "cpu,gpu,hybrid", "comma-separated policies")
	fl.IntVar(&o.CPUWorkers, "cpu-workers", 16, "CPU workers")
	fl.IntVar(&o.GPUBatch, "gpu-batch", 64, "most jobs the GPU takes at once")
	fl.DurationVar(&o.GPUCall, "gpu-call", 200*time.Microsecond, "fixed cost of one GPU batch")
	fl.DurationVar(&o.CPUOverhead, "cpu-overhead", 0, "added to every CPU job's measured time")
	fl.DurationVar(&o.Deadline, "deadline", 500*time.Millisecond, "per-query deadline")
	fl.DurationVar(&o.Horizon, "duration", 2*time.Second, "simulated arrivals per rate")
	fl.BoolVar(&o.StealOldest, "steal-oldest", false, "the first version's queue order (see bench load)")
	fl.Uint64Var(&o.Seed, "seed", 1, "seed of the arrivals and of the queries drawn")
	fl.Bool("json", true, "print JSON (always on)")
	cmd.MarkFlagRequired("samples")
	cmd.MarkFlagRequired("model")
	return cmd
}

// parsePolicies parses a comma-separated list of scheduling policies; an
// unknown one is a usage error.
func parsePolicies(list string) ([]schedule.Policy, error) {
	var policies []schedule.Policy
	for _, p := range splitList(list) {
		pol, err := schedule.ParsePolicy(p)
		if err != nil {
			return nil, usageError{err}
		}
		policies = append(policies, pol)
	}
	return policies, nil
}
