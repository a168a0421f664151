package main

import (
	"cmp"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/bench/load"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchLoadCmd) }

func newBenchLoadCmd() *cobra.Command {
	o := load.Options{Progress: os.Stderr}
	var sc schedule.Config
	var gpuWait string
	var gpuWorkers, gpuBatch int
	var dir, file, mode, policies, cpuEngine, modelFile, costsFile string
	var k int
	cmd := &cobra.Command{
		Use:   "load --index DIR --queries FILE --rate R --policy cpu|gpu|best|hybrid",
		Short: "Poisson arrivals through the CPU/GPU scheduler: delay, p99 and missed deadlines per policy; --sweep finds the highest sustainable rate",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			// The --gpu-* flags, where given, override the config's gpu section.
			gc := cfg.GPU
			gc.Wait = cmp.Or(gpuWait, gc.Wait)
			if gpuWorkers > 0 {
				gc.Workers = gpuWorkers
			}
			if gpuBatch > 0 {
				gc.Batch = gpuBatch
			}
			if err := gc.Validate(); err != nil {
				return usageError{err}
			}
			gogc := applyGC(cfg.Server.GCPercent) // as serve runs
			modes, err := parseModes(mode)
			if err != nil {
				return err
			}
			if o.Policies, err = parsePolicies(policies); err != nil {
				return err
			}
			lines, err := readQueries(file)
			if err != nil {
				return err
			}
			ix, err := index.Open(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			qs := inEveryMode(analysis.New(), lines, modes, k)
			fitted := true
			if modelFile != "" {
				sc.Model, err = schedule.ReadModel(modelFile)
			} else {
				sc.Model, fitted, err = schedule.LoadModel(dir)
			}
			if err != nil {
				return err
			}
			if cpuEngine != "" {
				sc.Model = sc.Model.WithCPUEngine(cpuEngine)
			}
			if sc.CPU, err = schedule.NewCPU(ix, sc.Model); err != nil {
				return err
			}
			gpus, gerr := schedule.OpenGPUs(ix, query.Options{GPU: query.GPUOptions{MemoryBudgetMB: gc.MemoryBudgetMB, Wait: gc.Wait}}, gc.Devices)
			defer gpus.Close()
			if len(gpus) == 0 {
				fmt.Fprintf(os.Stderr, "bench load: no GPU (%v)\n", gerr)
			}
			if !fitted {
				fmt.Fprintln(os.Stderr, "bench load: no cost-model.json beside the index (run bench fit); using the default model")
			}
			sc.GPUs, sc.GPUBatch, sc.GPUWorkers = gpus, gc.Batch, gc.Workers
			o.Costs = costsFile != ""
			rep, err := load.Measure(cmd.Context(), ix, qs, sc, o)
			if err != nil {
				return err
			}
			rep.Index, rep.Mode, rep.ModelFitted, rep.CPUEngine, rep.GPUWait, rep.GOGC = dir, mode, fitted, sc.Model.CPUEngines(), gc.Wait, gogc
			if costsFile != "" {
				if err := writeJSONFile(costsFile, rep.Costs); err != nil {
					return err
				}
			}
			return writeJSON(os.Stdout, rep)
		},
	}
	addConfigFlag(cmd)
	fl := cmd.Flags()
	fl.StringVar(&dir, "index", "index", "index directory")
	fl.StringVar(&file, "queries", "", "queries file")
	fl.StringVar(&mode, "mode", "or", "query mode, or a comma-separated list: each query then arrives in every mode, interleaved")
	fl.IntVar(&k, "k", 10, "results per query")
	fl.Float64Var(&o.Rate, "rate", 50, "mean arrival rate, queries per second (the sweep's start)")
	fl.DurationVar(&sc.Deadline, "deadline", 500*time.Millisecond, "per-query deadline")
	fl.StringVar(&policies, "policy", "hybrid", "comma-separated policies: cpu, gpu, best, hybrid")
	fl.DurationVar(&o.Duration, "duration", 10*time.Second, "arrivals stop after this long")
	fl.IntVar(&o.MaxQueries, "max-queries", 200000, "arrivals stop after this many (a safety cap: --duration should end a run, so that a rate is held for that long)")
	fl.BoolVar(&o.Sweep, "sweep", false, "find the highest rate with no missed deadline")
	fl.IntVar(&o.SweepSteps, "sweep-steps", 4, "bisection steps after the doubling phase")
	fl.DurationVar(&o.SweepTime, "sweep-time", 0, "stop a policy's sweep before a rate that would end past this long (judged by its longest rate so far) and report the best rate so far, marked in sweep_cut_short (0: no limit)")
	fl.Uint64Var(&o.Seed, "seed", 1, "seed of the arrival process")
	fl.IntVar(&sc.CPUWorkers, "cpu-workers", 0, "CPU workers (0: one per core, less one per GPU worker and two more under hybrid and best)")
	fl.IntVar(&sc.CPUAhead, "cpu-ahead", 0, fmt.Sprintf("while a backlog waits, each CPU worker holds this many queries beyond the one it runs (0: %d; negative: none)", schedule.DefaultCPUAhead))
	fl.StringVar(&cpuEngine, "cpu-engine", "", "the CPU workers' engine (query.New): cpu, maxscore, bmw, ... (default: the cost model's, which may pick one per query, else cpu)")
	fl.IntVar(&gpuBatch, "gpu-batch", 0, "most queries a GPU worker takes at once (0: the config's gpu.batch)")
	fl.IntVar(&gpuWorkers, "gpu-workers", 0, "workers per GPU: with 2, one plans its batch while the other's runs on the device, and their runs overlap there (0: the config's gpu.workers)")
	fl.StringVar(&gpuWait, "gpu-wait", "", "how the host waits for the GPU: auto, spin, yield or block (default: the config's gpu.wait)")
	fl.BoolVar(&sc.Queues.UrgentAnyProc, "urgent-any-proc", false, "hybrid: an urgent query runs on whichever processor is free first")
	fl.BoolVar(&sc.Queues.StealOldest, "steal-oldest", false, "hybrid: the first version's queue order (the GPU's cheapest job first, thieves take the oldest), for comparison")
	fl.StringVar(&modelFile, "model", "", "cost model file (default: cost-model.json beside the index)")
	fl.StringVar(&costsFile, "costs", "", "write each query's features and mean cost per processor as met under load, over every run of the command, to this JSON file (bench fit --samples' format); a GPU batch's time is split equally among its queries, so GPU figures compare only in sum")
	fl.Bool("json", true, "print JSON (always on)")
	cmd.MarkFlagRequired("queries")
	return cmd
}
