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

// genIndexFlags are gen index's flags.
type genIndexFlags struct {
	docs                   int
	seed                   uint64
	out, order, codec, fit string
	freqCodec              string
	workers                int
	aheadMB                int64
	quiet, json            bool
}

func newGenIndexCmd() *cobra.Command {
	var f genIndexFlags
	cmd := &cobra.Command{
		Use:   "index --docs N --out DIR [flags]",
		Short: "Generate a synthetic collection straight into an index (no text)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.docs < 1 {
				return usagef("gen index: --docs must be at least 1")
			}
			if f.out == "" {
				return usagef("gen index: --out is required")
			}
			if f.order != "url" && f.order != "random" {
				return usagef("gen index: --order %q: want url or random", f.order)
			}
			p := gen.DefaultParams()
			if f.fit != "" {
				var err error
				if p, err = gen.ReadParams(f.fit); err != nil {
					return err
				}
			}
			rep, err := gen.Generate(cmd.Context(), f.out, gen.Options{
				Docs: f.docs, Seed: f.seed, Order: f.order, Params: p,
				DocIDCodec: f.codec, FreqCodec: f.freqCodec, Workers: f.workers,
				AheadPostings: f.aheadMB << 20 / 8, Progress: stderrUnlessQuiet(f.quiet),
			})
			if err != nil {
				return err
			}
			s := bench.SummarizeGen(rep, f.out)
			if !f.quiet {
				fmt.Fprintf(os.Stderr, "generated %d documents in %s: %d terms, %d postings, %.2f bits/docid, %.2f bits/freq, index %.1f MB, peak RSS %.0f MB\n",
					rep.Docs, time.Duration(rep.Seconds*float64(time.Second)).Round(time.Millisecond), rep.Terms, rep.Postings,
					s.BitsPerDocID, s.BitsPerFreq, float64(s.IndexBytes)/1e6, s.PeakRSSMB)
			}
			if f.json {
				return writeJSON(os.Stdout, s)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.docs, "docs", 0, "number of documents")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed: the collection is a function of seed, docs, order and parameters")
	fl.StringVar(&f.out, "out", "", "output index directory")
	fl.StringVar(&f.order, "order", "url", "docid order: url (sites contiguous) or random")
	fl.StringVar(&f.codec, "codec", "bp128", "codec for docids (and frequencies unless --freq-codec)")
	fl.StringVar(&f.freqCodec, "freq-codec", "", "codec for frequencies")
	fl.StringVar(&f.fit, "fit", "", "parameters from `gen fit` (JSON file); default: the built-in Gov2-like parameters")
	fl.IntVar(&f.workers, "workers", 0, "generating goroutines (0 = every core)")
	fl.Int64Var(&f.aheadMB, "ahead-mb", 128, "MiB of posting lists generated ahead of the index writer")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress or summary on stderr")
	fl.BoolVar(&f.json, "json", false, "print the report as JSON on stdout")
	return cmd
}

func newGenFitCmd() *cobra.Command {
	var dir string
	var workers int
	var seed uint64
	var iters int
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
			res, err := gen.Fit(cmd.Context(), ix, gen.FitOptions{Workers: workers, Seed: seed, Iterations: iters})
			if err != nil {
				return err
			}
			return writeJSON(os.Stdout, res)
		},
	}
	cmd.Flags().StringVar(&dir, "index", "", "index directory to fit")
	cmd.Flags().IntVar(&workers, "workers", 0, "goroutines (0 = every core)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "seed of the simulated collections")
	cmd.Flags().IntVar(&iters, "iterations", 8, "simulation rounds at most")
	cmd.Flags().Bool("json", true, "print JSON (always on)")
	return cmd
}
