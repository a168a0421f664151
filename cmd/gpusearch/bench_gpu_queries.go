package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/gpubench"
	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

func init() { gpuBenchSubcommands = append(gpuBenchSubcommands, newBenchGPUQueriesCmd) }

func newBenchGPUQueriesCmd() *cobra.Command {
	o := gpubench.QueriesOptions{Progress: os.Stderr}
	var dir, file, modes, cpu, batches, topk string
	var device int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "queries --index DIR --queries FILE [flags]",
		Short: "GPU query engine against CPU engines on the same queries: latency on all queries and on those over --big-postings, speedups, phase breakdown, batched throughput, answers checked against the exhaustive scorer",
		Long: `Runs every query of FILE, in each mode, through the GPU engine and the CPU
engines of --cpu, one query at a time on one thread: a first pass (its answers
are kept, and the GPU's compared with the exhaustive scorer's when it runs),
then passes until --min-time. Latency is each query's mean over the passes;
mean, p50 and p99 are over queries, for all of them and for the "big" ones,
whose lists hold over --big-postings postings in all. The GPU's device time
by phase comes from one profiled run per query (CUDA events between phases),
and batched throughput from SearchBatch over consecutive chunks of the
queries, for each size of --batch, with --callers goroutines taking the
chunks in turn (as the scheduler's GPU workers do: their runs overlap on
the device).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file == "" {
				return usagef("bench gpu queries: --queries is required")
			}
			if o.K <= 0 || o.Callers <= 0 || o.MinTime < 0 || o.BigPostings < 0 {
				return usagef("bench gpu queries: --k and --callers must be positive, --min-time and --big-postings not negative")
			}
			var err error
			if o.Batches, err = parseBatchSizes(batches); err != nil {
				return usageError{err}
			}
			ix, err := index.Open(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			e, err := gpu.NewEngine(ix, gpu.Options{Device: device, TopK: topk})
			if err != nil {
				return err
			}
			defer e.Close()
			lines, err := readQueries(file)
			if err != nil {
				return err
			}
			for _, l := range lines {
				o.Texts = append(o.Texts, l.Text)
			}
			o.CPUNames = splitList(cpu)
			o.CPU = make([]query.Engine, len(o.CPUNames))
			for i, name := range o.CPUNames {
				if o.CPU[i], err = query.New(ix, name); err != nil {
					return usageError{err}
				}
			}
			if o.Modes, err = parseModes(modes); err != nil {
				return err
			}
			o.TopK, o.Command = topk, "gpusearch "+strings.Join(os.Args[1:], " ")
			rep, err := gpubench.Queries(cmd.Context(), ix, e, o)
			if err != nil {
				return err
			}
			rep.Device, rep.Index.Reencoded = e.Device(), e.Reencoded()
			if asJSON {
				rep.Print(os.Stderr)
				return writeJSON(os.Stdout, rep)
			}
			rep.Print(os.Stdout)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dir, "index", "index", "index directory")
	fl.StringVar(&file, "queries", "", "queries file (required)")
	fl.StringVar(&modes, "mode", "and,or", "comma-separated modes")
	fl.StringVar(&cpu, "cpu", "exhaustive,bmw,daat", "comma-separated CPU engines to compare with")
	fl.StringVar(&batches, "batch", "1,8,32,128", "comma-separated batch sizes for throughput")
	fl.IntVar(&o.K, "k", 10, "results per query")
	fl.IntVar(&o.Callers, "callers", 1, "goroutines calling SearchBatch at once in the throughput runs")
	fl.IntVar(&device, "device", 0, "CUDA device ordinal")
	fl.StringVar(&topk, "topk", "radix", "top-k method of single OR queries: radix (radix select) or tree (the paper's max tree)")
	fl.Int64Var(&o.BigPostings, "big-postings", 1000000, "a query is big when its lists hold more postings than this")
	fl.DurationVar(&o.MinTime, "min-time", time.Second, "least measured time per engine and mode")
	fl.BoolVar(&asJSON, "json", false, "print JSON to stdout (the table goes to stderr)")
	return cmd
}

// parseBatchSizes parses --batch: positive sizes, comma-separated.
func parseBatchSizes(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n < 1 {
			return nil, fmt.Errorf("bench gpu queries: bad batch size %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}
