package load

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpusearch/gpusearch/bench/args"
	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// Flags are bench load's command line: the harness's options, the
// scheduler's settings, and what Run opens.
type Flags struct {
	Options
	Sched                           schedule.Config
	Index, Queries, Mode, Policy    string
	CPUEngine, ModelFile, CostsFile string
	K                               int
	GPUWait                         string
	GPUWorkers, GPUBatch            int
	gpu                             config.GPU
	modes                           []query.Mode
}

// AddFlags declares bench load's flags on fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Index, "index", "index", "index directory")
	fs.StringVar(&f.Queries, "queries", "", "queries file")
	fs.StringVar(&f.Mode, "mode", "or", "query mode, or a comma-separated list: each query then arrives in every mode, interleaved")
	fs.IntVar(&f.K, "k", 10, "results per query")
	fs.Float64Var(&f.Rate, "rate", 50, "mean arrival rate, queries per second (the sweep's start)")
	fs.DurationVar(&f.Sched.Deadline, "deadline", 500*time.Millisecond, "per-query deadline")
	fs.StringVar(&f.Policy, "policy", "hybrid", "comma-separated policies: cpu, gpu, best, hybrid")
	fs.DurationVar(&f.Duration, "duration", 10*time.Second, "arrivals stop after this long")
	fs.IntVar(&f.MaxQueries, "max-queries", 200000, "arrivals stop after this many (a safety cap: --duration should end a run, so that a rate is held for that long)")
	fs.BoolVar(&f.Sweep, "sweep", false, "find the highest rate with no missed deadline")
	fs.IntVar(&f.SweepSteps, "sweep-steps", 4, "bisection steps after the doubling phase")
	fs.DurationVar(&f.SweepTime, "sweep-time", 0, "stop a policy's sweep before a rate that would end past this long (judged by its longest rate so far) and report the best rate so far, marked in sweep_cut_short (0: no limit)")
	fs.Uint64Var(&f.Seed, "seed", 1, "seed of the arrival process")
	fs.IntVar(&f.Sched.CPUWorkers, "cpu-workers", 0, "CPU workers (0: one per core, less one per GPU worker and two more under hybrid and best)")
	fs.IntVar(&f.Sched.CPUAhead, "cpu-ahead", 0, fmt.Sprintf("while a backlog waits, each CPU worker holds this many queries beyond the one it runs (0: %d; negative: none)", schedule.DefaultCPUAhead))
	fs.StringVar(&f.CPUEngine, "cpu-engine", "", "the CPU workers' engine (query.New): cpu, maxscore, bmw, ... (default: the cost model's, which may pick one per query, else cpu)")
	fs.IntVar(&f.GPUBatch, "gpu-batch", 0, "most queries a GPU worker takes at once (0: the config's gpu.batch)")
	fs.IntVar(&f.GPUWorkers, "gpu-workers", 0, "workers per GPU: with 2, one plans its batch while the other's runs on the device, and their runs overlap there (0: the config's gpu.workers)")
	fs.StringVar(&f.GPUWait, "gpu-wait", "", "how the host waits for the GPU: auto, spin, yield or block (default: the config's gpu.wait)")
	fs.BoolVar(&f.Sched.Queues.UrgentAnyProc, "urgent-any-proc", false, "hybrid: an urgent query runs on whichever processor is free first")
	fs.BoolVar(&f.Sched.Queues.StealOldest, "steal-oldest", false, "hybrid: the first version's queue order (the GPU's cheapest job first, thieves take the oldest), for comparison")
	fs.StringVar(&f.ModelFile, "model", "", "cost model file (default: cost-model.json beside the index)")
	fs.StringVar(&f.CostsFile, "costs", "", "write each query's features and mean cost per processor as met under load, over every run of the command, to this JSON file (bench fit --samples' format); a GPU batch's time is split equally among its queries, so GPU figures compare only in sum")
}

// Complete takes the config's gpu section, with the --gpu-* flags, where
// given, overriding it, and parses the lists.
func (f *Flags) Complete(gc config.GPU) error {
	gc.Wait = cmp.Or(f.GPUWait, gc.Wait)
	if f.GPUWorkers > 0 {
		gc.Workers = f.GPUWorkers
	}
	if f.GPUBatch > 0 {
		gc.Batch = f.GPUBatch
	}
	if err := gc.Validate(); err != nil {
		return err
	}
	f.gpu = gc
	var err error
	if f.modes, err = args.Modes(f.Mode); err != nil {
		return err
	}
	f.Policies, err = args.Policies(f.Policy)
	return err
}

// Run opens the index, the cost model and the GPUs and measures.
func (f *Flags) Run(ctx context.Context) (*Report, error) {
	lines, err := args.ReadQueries(f.Queries)
	if err != nil {
		return nil, err
	}
	ix, err := index.Open(f.Index)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	qs, err := args.InEveryMode(lines, f.modes, f.K)
	if err != nil {
		return nil, err
	}
	sc, fitted := f.Sched, true
	if f.ModelFile != "" {
		sc.Model, err = schedule.ReadModel(f.ModelFile)
	} else {
		sc.Model, fitted, err = schedule.LoadModel(f.Index)
	}
	if err != nil {
		return nil, err
	}
	if f.CPUEngine != "" {
		sc.Model = sc.Model.WithCPUEngine(f.CPUEngine)
	}
	if sc.CPU, err = schedule.NewCPU(ix, sc.Model); err != nil {
		return nil, err
	}
	gc := f.gpu
	gpus, gerr := schedule.OpenGPUs(ix, query.Options{GPU: query.GPUOptions{MemoryBudgetMB: gc.MemoryBudgetMB, Wait: gc.Wait,
		CachePolicy: gc.CachePolicy, CacheMB: gc.CacheMB, LongListKB: gc.LongListKB}}, gc.Devices)
	defer gpus.Close()
	if len(gpus) == 0 {
		progress(f.Progress, "bench load: no GPU (%v)\n", gerr)
	}
	if !fitted {
		progress(f.Progress, "bench load: no cost-model.json beside the index (run bench fit); using the default model\n")
	}
	sc.GPUs, sc.GPUBatch, sc.GPUWorkers = gpus, gc.Batch, gc.Workers
	o := f.Options
	o.Costs = f.CostsFile != ""
	rep, err := Measure(ctx, ix, qs, sc, o)
	if err != nil {
		return nil, err
	}
	rep.Index, rep.Mode, rep.ModelFitted, rep.CPUEngine, rep.GPUWait = f.Index, f.Mode, fitted, sc.Model.CPUEngines(), gc.Wait
	return rep, nil
}
