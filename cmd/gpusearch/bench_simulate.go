package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/query/schedule"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchSimulateCmd) }

// simFlags are bench simulate's options.
type simFlags struct {
	samples, model, policies   string
	cpuWorkers, gpuBatch       int
	gpuCall, deadline, horizon time.Duration
	cpuOverhead                time.Duration
	stealOldest                bool
	seed                       uint64
}

func newBenchSimulateCmd() *cobra.Command {
	var f simFlags
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
			samples, err := readSamples(f.samples)
			if err != nil {
				return err
			}
			model, err := schedule.ReadModel(f.model)
			if err != nil {
				return err
			}
			var policies []schedule.Policy
			for _, p := range splitList(f.policies) {
				pol, err := schedule.ParsePolicy(p)
				if err != nil {
					return usageError{err}
				}
				policies = append(policies, pol)
			}
			if f.cpuWorkers < 1 || f.gpuBatch < 1 || f.horizon <= 0 {
				return usageError{errors.New("--cpu-workers, --gpu-batch and --duration must be positive")}
			}
			best := map[string]simRun{}
			for _, p := range policies {
				run := func(rate float64) simRun { return simulate(samples, model, p, rate, f) }
				// Double, then bisect; a rate past maxSimJobs arrivals is
				// not tried (the answer is then a lower bound).
				lo, hi := 0.0, 1000.0
				for hi*f.horizon.Seconds() <= maxSimJobs && run(hi).Missed == 0 {
					lo, hi = hi, 2*hi
				}
				for hi-lo > max(lo/100, 1) {
					if mid := (lo + hi) / 2; run(mid).Missed == 0 {
						lo = mid
					} else {
						hi = mid
					}
				}
				best[string(p)] = run(lo)
			}
			return writeJSON(os.Stdout, map[string]any{"samples": len(samples), "model": model, "cpu_workers": f.cpuWorkers,
				"gpu_batch": f.gpuBatch, "gpu_call_us": f.gpuCall.Microseconds(), "cpu_overhead_us": f.cpuOverhead.Microseconds(), "steal_oldest": f.stealOldest, "max_rate_without_misses": best})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.samples, "samples", "", "measured samples (bench fit --samples)")
	fl.StringVar(&f.model, "model", "", "cost model file the queues predict with (bench fit's cost-model.json)")
	fl.StringVar(&f.policies, "policy", "cpu,gpu,hybrid", "comma-separated policies")
	fl.IntVar(&f.cpuWorkers, "cpu-workers", 16, "CPU workers")
	fl.IntVar(&f.gpuBatch, "gpu-batch", 64, "most jobs the GPU takes at once")
	fl.DurationVar(&f.gpuCall, "gpu-call", 200*time.Microsecond, "fixed cost of one GPU batch")
	fl.DurationVar(&f.cpuOverhead, "cpu-overhead", 0, "added to every CPU job's measured time")
	fl.DurationVar(&f.deadline, "deadline", 500*time.Millisecond, "per-query deadline")
	fl.DurationVar(&f.horizon, "duration", 2*time.Second, "simulated arrivals per rate")
	fl.BoolVar(&f.stealOldest, "steal-oldest", false, "the first version's queue order (see bench load)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the arrivals and of the queries drawn")
	fl.Bool("json", true, "print JSON (always on)")
	cmd.MarkFlagRequired("samples")
	cmd.MarkFlagRequired("model")
	return cmd
}

// readSamples reads a bench fit --samples file; it fails on an empty one.
func readSamples(path string) ([]schedule.Sample, error) {
	var samples []schedule.Sample
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("%s: no samples", path)
	}
	return samples, nil
}

// maxSimJobs bounds the arrivals of one simulated rate.
const maxSimJobs = 4e6

// simRun is one simulated rate: what each processor ran, and its busy time.
type simRun struct {
	Rate     float64 `json:"rate"`
	Missed   int     `json:"missed"`
	RanOnCPU int     `json:"ran_on_cpu"`
	RanOnGPU int     `json:"ran_on_gpu"`
	BusyCPUS float64 `json:"busy_cpu_s"`
	BusyGPUS float64 `json:"busy_gpu_s"`
}

// simulate replays rate * duration arrivals, each a sample drawn at random.
func simulate(samples []schedule.Sample, m *schedule.Model, p schedule.Policy, rate float64, f simFlags) simRun {
	r := rand.New(rand.NewPCG(f.seed, 1))
	jobs := make([]schedule.SimJob, int(rate*f.horizon.Seconds()))
	var t float64
	for i := range jobs {
		t += r.ExpFloat64() / rate
		s := samples[r.IntN(len(samples))]
		c, g := m.Predict(s.Features)
		jobs[i] = schedule.SimJob{Arrival: time.Duration(t * float64(time.Second)), Predicted: [2]time.Duration{c, g}, Actual: [2]time.Duration{s.CPU + f.cpuOverhead, s.GPU}}
	}
	res, err := schedule.Simulate(jobs, schedule.SimConfig{Policy: p, CPUs: f.cpuWorkers, GPUs: 1, Deadline: f.deadline,
		Queues: schedule.Options{StealOldest: f.stealOldest}, GPUBatch: f.gpuBatch, GPUCall: f.gpuCall})
	if err != nil { // only a policy without its processor: no rate is sustained
		return simRun{Rate: rate, Missed: len(jobs)}
	}
	run := simRun{Rate: rate, Missed: res.Missed, BusyCPUS: res.Busy[schedule.CPU].Seconds(), BusyGPUS: res.Busy[schedule.GPU].Seconds()}
	for _, on := range res.RanOn {
		if on == schedule.CPU {
			run.RanOnCPU++
		} else {
			run.RanOnGPU++
		}
	}
	return run
}
