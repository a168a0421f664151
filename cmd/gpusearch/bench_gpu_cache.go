package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/gpubench"
)

func init() { gpuBenchSubcommands = append(gpuBenchSubcommands, newBenchGPUCacheCmd) }

func newBenchGPUCacheCmd() *cobra.Command {
	f := gpubench.CacheFlags{CacheOptions: gpubench.CacheOptions{Progress: os.Stderr}}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "cache --index DIR --queries FILE [flags]",
		Short: "GPU list cache: hit rates of each policy and size on a query log (no GPU needed), and with --latency the GPU's latency against a resident index",
		Long: `Replays the query log FILE, in order, in each mode, through the GPU list
cache's bookkeeping (the code a GPU engine's cache runs), for each policy of
--policies and each size of --fractions (a share of the long lists' bytes):
the first --warmup of the log warms an empty cache, the rest is counted. Hit
rates are by lists and by bytes. This needs no GPU and is deterministic.
With --latency (a cuda build and a GPU), each row also opens a GPU engine
with that cache, runs the warm-up, then times each other query once, one at
a time, against a resident engine on the same queries (docs/gpu-cache.md).`,
		Args: cobra.NoArgs,
		RunE: runGPUBench[*gpubench.CacheReport](&f, &f.Command, &asJSON),
	}
	f.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON to stdout (the table goes to stderr)")
	return cmd
}
