package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchIntersectCmd) }

func newBenchIntersectCmd() *cobra.Command {
	f := bench.IntersectFlags{IntersectOptions: bench.IntersectOptions{Progress: os.Stderr}}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "intersect [flags]",
		Short: "List intersection algorithms on random list pairs and triples: ns per element of the shortest list",
		Long: `Draws random sorted lists shaped as in the intersection report: the
shortest list has 100, 1,000, ... elements up to --max-len, the others are
1, 10, 100 or 1000 times longer (never past --max-len), as pairs and as
triples. Docids are drawn below --universe, by default four times the
longest list, so that the longest lists are as dense as a frequent term's
and a pair's intersection holds about a quarter of the shorter list. Each algorithm repeats until --min-time
has passed. "hash" and "bitmap" probe tables built ahead, as an index would
store them; "hash+build" and "bitmap+build" include building the tables of
the longer lists on every repetition.

With --engine gpu the lists and tables are copied to the GPU once per
shape (not timed) and the GPU's algorithms run there (gpu-svs and gpu-adp:
the report's coarse-grained SVS and ADP, 32 candidates a thread, with the
exact start; gpu-hash, gpu-bitmap: a thread per candidate): the wall time
of a run includes launching, synchronizing and copying the result back,
and device_ns_per_elem is the kernels' time alone. Every GPU result is
checked against the CPU's merge.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.Complete(); err != nil {
				return usageError{err}
			}
			rep, err := bench.Intersect(cmd.Context(), f.IntersectOptions)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(os.Stdout, rep)
			}
			return rep.Print(os.Stdout)
		},
	}
	f.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
