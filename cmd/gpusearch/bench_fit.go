package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/bench/costs"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchFitCmd) }

func newBenchFitCmd() *cobra.Command {
	var dir, queries, mode, cpuEngine, samplesFile string
	var k int
	var o costs.FitOptions
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
			names := splitList(cpuEngine)
			if cpuEngine == "auto" {
				names = costs.AutoCandidates
			}
			if len(names) == 0 {
				return usageError{fmt.Errorf("--cpu-engine: no engine named")}
			}
			cpus := make([]costs.Candidate, len(names))
			for i, name := range names {
				cpus[i].Name = name
				if cpus[i].Engine, err = query.New(ix, name); err != nil {
					return err
				}
			}
			if !cmd.Flags().Changed("gpu-batch") {
				o.GPUBatch = cfg.GPU.Batch
			}
			if o.GPUBatch < 1 {
				return usageError{fmt.Errorf("--gpu-batch must be positive")}
			}
			gpus, gerr := schedule.OpenGPUs(ix, query.Options{GPU: query.GPUOptions{MemoryBudgetMB: cfg.GPU.MemoryBudgetMB, Wait: cfg.GPU.Wait}}, cfg.GPU.Devices)
			defer gpus.Close()
			var g query.Engine
			if len(gpus) > 0 {
				g = gpus[0]
			} else {
				fmt.Fprintf(os.Stderr, "bench fit: no GPU (%v); fitting the CPU model only\n", gerr)
			}
			// Every query in every mode, interleaved, so that the model
			// learns each mode and the held-out set covers them all.
			rep, err := costs.Fit(cmd.Context(), ix, inEveryMode(analysis.New(), lines, modes, k), cpus, g, o)
			if err != nil {
				return err
			}
			if samplesFile != "" {
				if err := writeJSONFile(samplesFile, rep.Samples); err != nil {
					return err
				}
			}
			if err := rep.Model.Save(dir); err != nil {
				return err
			}
			return writeJSON(os.Stdout, rep)
		},
	}
	addConfigFlag(cmd)
	fl := cmd.Flags()
	fl.StringVar(&dir, "index", "index", "index directory (the model is written there)")
	fl.StringVar(&queries, "queries", "", "queries file (qid<TAB>text or text per line)")
	fl.StringVar(&mode, "mode", "and,or,andor", "comma-separated query modes to time (fit every mode the server will see)")
	fl.IntVar(&k, "k", 10, "results per query")
	fl.IntVar(&o.Repeat, "repeat", 3, "runs per query; the median is used")
	fl.IntVar(&o.HoldOut, "hold-out", 4, "every n-th query is held out to measure the model's error")
	fl.StringVar(&samplesFile, "samples", "", "also write the measured samples (features and times) to this JSON file")
	fl.StringVar(&cpuEngine, "cpu-engine", "auto", "the CPU engines timed (comma-separated query.New names), or auto: exhaustive, cpu, wand and bmw; with several, a model is fitted for each and engine=auto runs each query on the one predicted fastest (cpu_engine, the fastest over all queries, is the fallback)")
	fl.IntVar(&o.GPUBatch, "gpu-batch", 128, "time the GPU per query in batches of this many copies of each query, as the scheduler hands it work (default: the config's gpu.batch; 1: one query at a time)")
	fl.Bool("json", true, "print JSON (always on)")
	cmd.MarkFlagRequired("queries")
	return cmd
}
