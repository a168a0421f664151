package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/gpubench"
)

func init() { gpuBenchSubcommands = append(gpuBenchSubcommands, newBenchGPUQueriesCmd) }

func newBenchGPUQueriesCmd() *cobra.Command {
	f := gpubench.QueriesFlags{QueriesOptions: gpubench.QueriesOptions{Progress: os.Stderr}}
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
		RunE: runGPUBench[*gpubench.QueriesReport](&f, &f.Command, &asJSON),
	}
	f.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON to stdout (the table goes to stderr)")
	return cmd
}
