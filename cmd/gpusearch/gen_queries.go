package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/gen"
	"github.com/gpusearch/gpusearch/index"
)

func newGenQueriesCmd() *cobra.Command {
	var dir, out string
	var o gen.QueryOptions
	var quiet bool
	cmd := &cobra.Command{
		Use:   "queries --index DIR [--n 1000] [--seed S] [--out FILE]",
		Short: "Draw 2-5 term queries whose list lengths follow efficiency-track logs; prints qid<TAB>terms lines",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return usagef("gen queries: --index is required")
			}
			if o.N < 1 {
				return usagef("gen queries: --n must be at least 1")
			}
			ix, err := index.Open(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			qs, rep, err := gen.Queries(ix, o)
			if err != nil {
				return err
			}
			w := os.Stdout
			if out != "" {
				if w, err = os.Create(out); err != nil {
					return err
				}
			}
			err = gen.WriteQueries(w, qs)
			if out != "" {
				err = errors.Join(err, w.Close())
			}
			if err != nil {
				return err
			}
			if !quiet {
				fmt.Fprintf(os.Stderr, "%d queries, %.2f terms and %.0f postings on average (target %.0f), alpha %.3f\n",
					rep.Queries, rep.MeanTerms, rep.MeanPostings, rep.TargetPostings, rep.Alpha)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "index", "", "index whose lexicon the queries are drawn from")
	cmd.Flags().StringVar(&out, "out", "", "write the queries here (default: stdout)")
	o.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&quiet, "quiet", false, "no summary on stderr")
	return cmd
}
