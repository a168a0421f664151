package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench"
	"github.com/gpusearch/gpusearch/gen"
	"github.com/gpusearch/gpusearch/index"
)

func init() { subcommands = append(subcommands, newGenCmd) }

func newGenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gen",
		Short: "Synthetic collections with fitted statistics: gen index, gen queries, gen fit",
	}
	cmd.AddCommand(newGenIndexCmd(), newGenFitCmd(), newGenQueriesCmd())
	return cmd
}

func newGenIndexCmd() *cobra.Command {
	var f gen.IndexFlags
	var quiet, asJSON bool
	cmd := &cobra.Command{
		Use:   "index --docs N --out DIR [--shards N] [flags]",
		Short: "Generate a synthetic collection straight into an index, or a sharded collection (no text)",
		Long: `Generate a synthetic collection straight into an index (no text is
produced): the collection is a function of --seed, --docs, --order and
the parameters (--fit).

With --shards N, --out becomes a sharded collection, as index --shards or
split would write it from the one index: shard-00 to shard-(N-1), URL
ranges of balanced document counts, each scored under the whole
collection's statistics, then shards.json. The N shards are written at
once, one writer each, from the same generated lists, so that sharded
generation takes no longer than one index's; url order only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.Complete(); err != nil {
				return usageError{err}
			}
			f.Progress = stderrUnlessQuiet(quiet)
			rep, err := f.Run(cmd.Context())
			if err != nil {
				return forceHint(err)
			}
			s := bench.SummarizeGen(rep, f.Out)
			if !quiet {
				fmt.Fprintf(os.Stderr, "generated %d documents in %s: %d terms, %d postings, %.2f bits/docid, %.2f bits/freq, index %.1f MB, peak RSS %.0f MB\n",
					rep.Docs, time.Duration(rep.Seconds*float64(time.Second)).Round(time.Millisecond), rep.Terms, rep.Postings,
					s.BitsPerDocID, s.BitsPerFreq, float64(s.IndexBytes)/1e6, s.PeakRSSMB)
				for _, sh := range rep.Shards {
					fmt.Fprintf(os.Stderr, "  %s: %d documents from docid %d, %d terms, %d postings, %.1f MB\n",
						sh.Dir, sh.Docs, sh.FirstDoc, sh.Terms, sh.Postings, float64(sh.Bytes)/1e6)
				}
			}
			if asJSON {
				return writeJSON(os.Stdout, s)
			}
			return nil
		},
	}
	f.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&quiet, "quiet", false, "no progress or summary on stderr")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON on stdout")
	return cmd
}

func newGenFitCmd() *cobra.Command {
	var dir string
	var o gen.FitOptions
	cmd := &cobra.Command{
		Use:   "fit --index DIR",
		Short: "Fit the synthetic model's parameters to an index and print them as JSON (for gen index --fit)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return usagef("gen fit: --index is required")
			}
			ix, err := index.Open(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			res, err := gen.Fit(cmd.Context(), ix, o)
			if err != nil {
				return err
			}
			return writeJSON(os.Stdout, res)
		},
	}
	cmd.Flags().StringVar(&dir, "index", "", "index directory to fit")
	o.AddFlags(cmd.Flags())
	cmd.Flags().Bool("json", true, "print JSON (always on)")
	return cmd
}
