package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/gpubench"
)

func init() { gpuBenchSubcommands = append(gpuBenchSubcommands, newBenchGPUMultiCmd) }

func newBenchGPUMultiCmd() *cobra.Command {
	f := gpubench.MultiFlags{MultiOptions: gpubench.MultiOptions{Progress: os.Stderr}}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "multi --index DIR --shards COLLECTION --devices 0,1 --queries FILE [flags]",
		Short: "One GPU holding the whole index against a sharded collection's shards on several GPUs: latency one query at a time, and queries/s at a batch deadline",
		Long: `Measures each setup of --setups in turn (opened, measured, closed): the
whole index (--index) on the first device of --devices; the shards of the
sharded collection --shards (the same documents: gpusearch split) all on the
first device; the shards on the devices, shard i on the i-th modulo their
number, searched at once and merged. For each mode: latency, each query
once, one at a time after a warm-up pass; then SearchBatch over consecutive
chunks of each --batch size from --callers goroutines, and the best queries/s
among the sizes whose slowest batch finished within --deadline. Every
setup's answers are compared with the first's (docids and scores).`,
		Args: cobra.NoArgs,
		RunE: runGPUBench[*gpubench.MultiReport](&f, &f.Command, &asJSON),
	}
	f.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON to stdout (the table goes to stderr)")
	return cmd
}
