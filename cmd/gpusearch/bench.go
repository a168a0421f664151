package main

import "github.com/spf13/cobra"

func init() { subcommands = append(subcommands, newBenchCmd) }

// benchSubcommands is filled by each bench_*.go file's init.
var benchSubcommands []func() *cobra.Command

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Benchmarks: index, codecs, intersect, queries, gpu, http, fit, load, simulate, bound",
	}
	addProfiling(cmd)
	for _, mk := range benchSubcommands {
		cmd.AddCommand(mk())
	}
	return cmd
}
