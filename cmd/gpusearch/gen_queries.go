package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/gen"
	"github.com/gpusearch/gpusearch/index"
)

func newGenQueriesCmd() *cobra.Command {
	var dir, out string
	var n int
	var seed uint64
	var perDoc float64
	var quiet bool
	cmd := &cobra.Command{
		Use:   "queries --index DIR [--n 1000] [--seed S] [--out FILE]",
		Short: "Draw 2-5 term queries whose list lengths follow efficiency-track logs; prints qid<TAB>terms lines",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return usagef("gen queries: --index is required")
			}
			if n < 1 {
				return usagef("gen queries: --n must be at least 1")
			}
			ix, err := index.Open(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			qs, rep, err := gen.Queries(ix, gen.QueryOptions{N: n, Seed: seed, PostingsPerDoc: perDoc})
			if err != nil {
				return err
			}
			w := os.Stdout
			if out != "" {
				if w, err = os.Create(out); err != nil {
					return err
				}
			}
			bw := bufio.NewWriter(w)
			for _, q := range qs {
				fmt.Fprintf(bw, "%s\t%s\n", q.ID, strings.Join(q.Terms, " "))
			}
			err = bw.Flush()
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
	fl := cmd.Flags()
	fl.StringVar(&dir, "index", "", "index whose lexicon the queries are drawn from")
	fl.StringVar(&out, "out", "", "write the queries here (default: stdout)")
	fl.IntVar(&n, "n", 1000, "number of queries")
	fl.Uint64Var(&seed, "seed", 1, "random seed")
	fl.Float64Var(&perDoc, "postings-per-doc", gen.Gov2PostingsPerDoc, "mean postings per query, per document of the collection")
	fl.BoolVar(&quiet, "quiet", false, "no summary on stderr")
	return cmd
}
