package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchFitCmd) }

// fitCandidates are the CPU engines bench fit --cpu-engine auto times
// and fits a cost model for, so that engine=auto picks one per query:
// term-at-a-time over dense accumulators (exhaustive) wins on queries of
// few postings, WAND in between, MaxScore OR (cpu) on real collections
// and Block-Max WAND on synthetic ones on the longest (docs/queries.md,
// docs/scheduling.md).
var fitCandidates = []string{"exhaustive", "cpu", "wand", "bmw"}

func newBenchFitCmd() *cobra.Command {
	var dir, queries, mode, cpuEngine, samplesFile string
	var k, repeat, holdOut, gpuBatch int
	cmd := &cobra.Command{
		Use:   "fit --index DIR --queries FILE",
		Short: "Time every query on the CPU (and GPU), fit the scheduler's cost model, write it beside the index",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			modes, err := parseModes(mode)
			if err != nil {
				return err
			}
			lines, err := readQueries(queries)
			if err != nil {
				return err
			}
			ix, err := index.Open(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			candidates := splitList(cpuEngine)
			if cpuEngine == "auto" {
				candidates = fitCandidates
			}
			if len(candidates) == 0 {
				return usageError{fmt.Errorf("--cpu-engine: no engine named")}
			}
			cpus := make([]query.Engine, len(candidates))
			for i, name := range candidates {
				if cpus[i], err = query.New(ix, name); err != nil {
					return err
				}
			}
			if !cmd.Flags().Changed("gpu-batch") {
				gpuBatch = cfg.GPU.Batch
			}
			if gpuBatch < 1 {
				return usageError{fmt.Errorf("--gpu-batch must be positive")}
			}
			gpus, gerr := openGPUs(ix, cfg.GPU)
			defer closeGPUs(gpus)
			if len(gpus) == 0 {
				fmt.Fprintf(os.Stderr, "bench fit: no GPU (%v); fitting the CPU model only\n", gerr)
			}
			// samples[c] holds every query timed with candidate c; every
			// query in every mode, interleaved, so that the model learns
			// each mode and the held-out set covers them all.
			samples := make([][]schedule.Sample, len(candidates))
			totals := make([]time.Duration, len(candidates))
			for _, q := range inEveryMode(analysis.New(), lines, modes, k) {
				s := schedule.Sample{Features: schedule.FeaturesOf(ix, q)}
				if len(gpus) > 0 {
					if s.GPU, err = gpuTime(cmd.Context(), gpus[0], q, repeat, gpuBatch); err != nil {
						return err
					}
				}
				for c, cpu := range cpus {
					if s.CPU, err = medianTime(cmd.Context(), cpu, q, repeat); err != nil {
						return err
					}
					totals[c] += s.CPU
					samples[c] = append(samples[c], s)
				}
			}
			cpuTotals := map[string]float64{}
			for c, name := range candidates {
				cpuTotals[name] = totals[c].Seconds()
			}
			model, err := schedule.FitChoice(candidates, samples, holdOut)
			if err != nil {
				return err
			}
			chosen := schedule.Chosen(model, candidates, samples)
			if len(candidates) > 1 {
				// What the choice costs against each engine alone and
				// against always picking the fastest (the oracle).
				var choice, oracle time.Duration
				for i, s := range chosen {
					choice += s.CPU
					fastest := s.CPU
					for c := range candidates {
						fastest = min(fastest, samples[c][i].CPU)
					}
					oracle += fastest
				}
				cpuTotals["choice"], cpuTotals["oracle"] = choice.Seconds(), oracle.Seconds()
			}
			if samplesFile != "" {
				if err := writeJSONFile(samplesFile, chosen); err != nil {
					return err
				}
			}
			if err := model.Save(dir); err != nil {
				return err
			}
			return writeJSON(os.Stdout, map[string]any{
				"index": dir, "cpu_engine": model.CPUEngine, "cpu_engines": model.CPUEngines(), "cpu_total_seconds": cpuTotals, "gpu_batch": gpuBatch, "queries": len(chosen), "held_out_every": holdOut, "model": model,
				"cpu_mean_relative_error": model.CPUError, "gpu_mean_relative_error": model.GPUError,
			})
		},
	}
	addConfigFlag(cmd)
	fl := cmd.Flags()
	fl.StringVar(&dir, "index", "index", "index directory (the model is written there)")
	fl.StringVar(&queries, "queries", "", "queries file (qid<TAB>text or text per line)")
	fl.StringVar(&mode, "mode", "and,or,andor", "comma-separated query modes to time (fit every mode the server will see)")
	fl.IntVar(&k, "k", 10, "results per query")
	fl.IntVar(&repeat, "repeat", 3, "runs per query; the median is used")
	fl.IntVar(&holdOut, "hold-out", 4, "every n-th query is held out to measure the model's error")
	fl.StringVar(&samplesFile, "samples", "", "also write the measured samples (features and times) to this JSON file")
	fl.StringVar(&cpuEngine, "cpu-engine", "auto", "the CPU engines timed (comma-separated query.New names), or auto: exhaustive, cpu, wand and bmw; with several, a model is fitted for each and engine=auto runs each query on the one predicted fastest (cpu_engine, the fastest over all queries, is the fallback)")
	fl.IntVar(&gpuBatch, "gpu-batch", 128, "time the GPU per query in batches of this many copies of each query, as the scheduler hands it work (default: the config's gpu.batch; 1: one query at a time)")
	fl.Bool("json", true, "print JSON (always on)")
	cmd.MarkFlagRequired("queries")
	return cmd
}

// gpuTime is a query's GPU cost as the scheduler meets it: with batch > 1
// and a batch engine, the median time of a batch of batch copies of q,
// divided by batch (the launches are shared, the work is not); otherwise
// medianTime.
func gpuTime(ctx context.Context, e query.Engine, q query.Query, repeat, batch int) (time.Duration, error) {
	be, ok := e.(query.BatchEngine)
	if !ok || batch <= 1 {
		return medianTime(ctx, e, q, repeat)
	}
	qs := make([]query.Query, batch)
	for i := range qs {
		qs[i] = q
	}
	t, err := medianRun(repeat, func() error {
		_, err := be.SearchBatch(ctx, qs)
		return err
	})
	return t / time.Duration(batch), err
}

// medianTime runs q repeat times on e and returns the median wall time.
func medianTime(ctx context.Context, e query.Engine, q query.Query, repeat int) (time.Duration, error) {
	return medianRun(repeat, func() error {
		_, err := e.Search(ctx, q)
		return err
	})
}

// medianRun runs f repeat times (at least once) and returns the median
// wall time of a run.
func medianRun(repeat int, f func() error) (time.Duration, error) {
	ts := make([]time.Duration, max(repeat, 1))
	for i := range ts {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		ts[i] = time.Since(start)
	}
	return median(ts), nil
}
