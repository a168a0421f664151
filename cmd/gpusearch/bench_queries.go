package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/queries"
	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchQueriesCmd) }

func newBenchQueriesCmd() *cobra.Command {
	f := queries.Flags{Options: queries.Options{Progress: os.Stderr}}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "queries --index DIR --queries FILE [flags]",
		Short: "Latency percentiles, queries/s on one and all cores, and work per query of the CPU engines",
		Long: `Runs every query of FILE (one per line, optionally qid<TAB>text) through each
engine and mode. A warm-up pass comes first and is not counted; then
passes repeat until --min-time has passed (at least one). Without --engine,
every CPU algorithm runs: exhaustive, daat, maxscore, wand, bmw, and the
bitmap baseline twice: "bitmap-nocache" builds each query's bitmaps (its
rows say "bitmap") and "bitmap" reads them from a warm cache (its rows'
algorithm says "bitmap-cached"); "gpu" is the GPU engine (a cuda build;
its searches are serialized). Without --threads, each engine runs on 1
goroutine and on GOMAXPROCS goroutines.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.Complete(); err != nil {
				return usageError{err}
			}
			rep, err := f.Run(cmd.Context(), func(ix *index.Index, name string) (query.Engine, func(), error) {
				return openEngine(ix, config.GPU{Devices: []int{0}}, name)
			})
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
