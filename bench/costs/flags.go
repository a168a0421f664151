package costs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpusearch/gpusearch/bench/args"
	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// FitFlags are bench fit's command line: Fit's options and what
// FitFlags.Run opens.
type FitFlags struct {
	FitOptions
	Index, Queries, Mode, CPUEngine, Samples string
	K                                        int
	Progress                                 io.Writer
	gpu                                      config.GPU
	modes                                    []query.Mode
	names                                    []string
}

// AddFlags declares bench fit's flags on fs.
func (f *FitFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Index, "index", "index", "index directory (the model is written there)")
	fs.StringVar(&f.Queries, "queries", "", "queries file (qid<TAB>text or text per line)")
	fs.StringVar(&f.Mode, "mode", "and,or,andor", "comma-separated query modes to time (fit every mode the server will see)")
	fs.IntVar(&f.K, "k", 10, "results per query")
	fs.IntVar(&f.Repeat, "repeat", 3, "runs per query; the median is used")
	fs.IntVar(&f.HoldOut, "hold-out", 4, "every n-th query is held out to measure the model's error")
	fs.StringVar(&f.Samples, "samples", "", "also write the measured samples (features and times) to this JSON file")
	fs.StringVar(&f.CPUEngine, "cpu-engine", "auto", "the CPU engines timed (comma-separated query.New names), or auto: exhaustive, cpu, wand and bmw; with several, a model is fitted for each and engine=auto runs each query on the one predicted fastest (cpu_engine, the fastest over all queries, is the fallback)")
	fs.IntVar(&f.GPUBatch, "gpu-batch", 128, "time the GPU per query in batches of this many copies of each query, as the scheduler hands it work (default: the config's gpu.batch; 1: one query at a time)")
}

// Complete takes the config's gpu section (its batch unless --gpu-batch
// is set in fs) and parses the lists.
func (f *FitFlags) Complete(fs *pflag.FlagSet, gc config.GPU) error {
	f.gpu = gc
	var err error
	if f.modes, err = args.Modes(f.Mode); err != nil {
		return err
	}
	f.names = args.List(f.CPUEngine)
	if f.CPUEngine == "auto" {
		f.names = AutoCandidates
	}
	if len(f.names) == 0 {
		return errors.New("--cpu-engine: no engine named")
	}
	if !fs.Changed("gpu-batch") {
		f.GPUBatch = gc.Batch
	}
	if f.GPUBatch < 1 {
		return errors.New("--gpu-batch must be positive")
	}
	return nil
}

// Run opens the index, the CPU engines and the configured GPUs and fits
// the model on every query in every mode, interleaved, so that the model
// learns each mode and the held-out set covers them all.
func (f *FitFlags) Run(ctx context.Context) (*FitReport, error) {
	lines, err := args.ReadQueries(f.Queries)
	if err != nil {
		return nil, err
	}
	ix, err := index.Open(f.Index)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	cpus := make([]Candidate, len(f.names))
	for i, name := range f.names {
		cpus[i].Name = name
		if cpus[i].Engine, err = query.New(ix, name); err != nil {
			return nil, err
		}
	}
	gpus, gerr := schedule.OpenGPUs(ix, query.Options{GPU: query.GPUOptions{MemoryBudgetMB: f.gpu.MemoryBudgetMB, Wait: f.gpu.Wait,
		CachePolicy: f.gpu.CachePolicy, CacheMB: f.gpu.CacheMB, LongListKB: f.gpu.LongListKB}}, f.gpu.Devices)
	defer gpus.Close()
	var g query.Engine
	if len(gpus) > 0 {
		g = gpus[0]
	} else if f.Progress != nil {
		fmt.Fprintf(f.Progress, "bench fit: no GPU (%v); fitting the CPU model only\n", gerr)
	}
	qs, err := args.InEveryMode(lines, f.modes, f.K)
	if err != nil {
		return nil, err
	}
	return Fit(ctx, ix, qs, cpus, g, f.FitOptions)
}

// SimulateFlags are bench simulate's command line.
type SimulateFlags struct {
	SimulateOptions
	Samples, Model, Policy string
}

// AddFlags declares bench simulate's flags on fs.
func (f *SimulateFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Samples, "samples", "", "measured samples (bench fit --samples)")
	fs.StringVar(&f.Model, "model", "", "cost model file the queues predict with (bench fit's cost-model.json)")
	fs.StringVar(&f.Policy, "policy", "cpu,gpu,hybrid", "comma-separated policies")
	fs.IntVar(&f.CPUWorkers, "cpu-workers", 16, "CPU workers")
	fs.IntVar(&f.GPUBatch, "gpu-batch", 64, "most jobs the GPU takes at once")
	fs.DurationVar(&f.GPUCall, "gpu-call", 200*time.Microsecond, "fixed cost of one GPU batch")
	fs.DurationVar(&f.CPUOverhead, "cpu-overhead", 0, "added to every CPU job's measured time")
	fs.DurationVar(&f.Deadline, "deadline", 500*time.Millisecond, "per-query deadline")
	fs.DurationVar(&f.Horizon, "duration", 2*time.Second, "simulated arrivals per rate")
	fs.BoolVar(&f.StealOldest, "steal-oldest", false, "the first version's queue order (see bench load)")
	fs.Uint64Var(&f.Seed, "seed", 1, "seed of the arrivals and of the queries drawn")
}

// Complete parses the policies and checks the sizes.
func (f *SimulateFlags) Complete() error {
	var err error
	if f.Policies, err = args.Policies(f.Policy); err != nil {
		return err
	}
	if f.CPUWorkers < 1 || f.GPUBatch < 1 || f.Horizon <= 0 {
		return errors.New("--cpu-workers, --gpu-batch and --duration must be positive")
	}
	return nil
}

// Run reads the samples and the model and simulates.
func (f *SimulateFlags) Run() (*SimulateReport, error) {
	samples, err := ReadSamples(f.Samples)
	if err != nil {
		return nil, err
	}
	model, err := schedule.ReadModel(f.Model)
	if err != nil {
		return nil, err
	}
	return Simulate(samples, model, f.SimulateOptions), nil
}

// BoundFlags are bench bound's command line.
type BoundFlags struct {
	BoundOptions
	Samples, Overhead string
}

// AddFlags declares bench bound's flags on fs.
func (f *BoundFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Samples, "samples", "", "measured samples (bench fit --samples)")
	fs.IntVar(&f.CPUWorkers, "cpu-workers", 14, "CPU workers (the scheduler's, under hybrid)")
	fs.Float64Var(&f.GPURate, "gpu-rate", 0, "queries a second the GPU alone sustains on this mix (required)")
	fs.Float64Var(&f.CPURate, "cpu-rate", 0, "queries a second the CPU alone sustains on this mix: adds the overhead that matches it")
	fs.IntVar(&f.AloneWorkers, "cpu-alone-workers", 0, "the CPU workers of --cpu-rate's run (0: --cpu-workers + 2, as the scheduler runs the CPU alone on every core)")
	fs.StringVar(&f.Overhead, "overhead", "0s", "comma-separated CPU overheads per query")
}

// Complete sets the default workers of the CPU alone, checks the rates
// and parses the overheads.
func (f *BoundFlags) Complete() error {
	if f.AloneWorkers == 0 {
		f.AloneWorkers = f.CPUWorkers + 2
	}
	if f.CPUWorkers < 1 || f.AloneWorkers < 1 || f.GPURate <= 0 || f.CPURate < 0 {
		return errors.New("bench bound: --cpu-workers, --cpu-alone-workers and --gpu-rate must be positive, --cpu-rate not negative")
	}
	for _, s := range args.List(f.Overhead) {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return fmt.Errorf("bench bound: bad overhead %q", s)
		}
		f.Overheads = append(f.Overheads, d)
	}
	return nil
}

// Run reads the samples and computes the bound.
func (f *BoundFlags) Run() (*BoundReport, error) {
	samples, err := ReadSamples(f.Samples)
	if err != nil {
		return nil, err
	}
	return Bound(samples, f.BoundOptions)
}
