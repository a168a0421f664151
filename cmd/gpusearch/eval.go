package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/eval"
)

func init() { subcommands = append(subcommands, newEvalCmd) }

func newEvalCmd() *cobra.Command {
	var qrelsPath, runPath string
	var depth int
	var asJSON, perQuery bool
	cmd := &cobra.Command{
		Use:   "eval --qrels FILE --run FILE",
		Short: "Score a TREC run against relevance judgments: MAP, MRR, P@10, nDCG@10, recall@100",
		Long: `Score a TREC run ("qid Q0 docno rank score tag" lines) against TREC qrels
("qid 0 docno rel"). The measures and which queries count are defined in
package eval's documentation (trec_eval's definitions; the mean runs over the
queries with at least one relevant document, a missing one scoring 0).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if qrelsPath == "" || runPath == "" {
				return usagef("eval needs --qrels and --run")
			}
			if depth < 0 {
				return usagef("--depth must not be negative")
			}
			qrels, err := readWith(qrelsPath, eval.ReadQrels)
			if err != nil {
				return err
			}
			run, err := readWith(runPath, eval.ReadRun)
			if err != nil {
				return err
			}
			s, err := eval.Evaluate(qrels, run, eval.Options{Depth: depth})
			if err != nil {
				return err
			}
			if s.Missing == s.Queries {
				fmt.Fprintf(os.Stderr, "warning: no judged query has results in %s: do the query ids match the qrels?\n", runPath)
			}
			if asJSON {
				return writeJSON(os.Stdout, s)
			}
			if perQuery {
				for _, qid := range slices.SortedFunc(maps.Keys(s.PerQuery), eval.CompareIDs) {
					m := s.PerQuery[qid]
					printMeasures(qid, m.AP, m.RR, m.P10, m.NDCG10, m.Recall100)
				}
			}
			fmt.Printf("%-10s %-8s %d\n", "queries", "all", s.Queries)
			printMeasures("all", s.MAP, s.MRR, s.P10, s.NDCG10, s.Recall100)
			fmt.Printf("%-10s %-8s %d\n%-10s %-8s %d\n", "missing", "all", s.Missing, "ignored", "all", s.Ignored)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&qrelsPath, "qrels", "", "TREC qrels file")
	fl.StringVar(&runPath, "run", "", "TREC run file")
	fl.IntVar(&depth, "depth", 0, "results per query considered, after sorting (trec_eval -M); 0 for all, 10 for MRR@10")
	fl.BoolVar(&perQuery, "per-query", false, "also print each query's measures (trec_eval -q)")
	fl.BoolVar(&asJSON, "json", false, "print JSON (always with per-query measures)")
	return cmd
}

// printMeasures prints one query's (or the means') measures as
// trec_eval does: "measure qid value" lines.
func printMeasures(qid string, mapv, mrr, p10, ndcg10, recall100 float64) {
	for _, m := range []struct {
		name string
		v    float64
	}{{"map", mapv}, {"mrr", mrr}, {"p10", p10}, {"ndcg10", ndcg10}, {"recall100", recall100}} {
		fmt.Printf("%-10s %-8s %.4f\n", m.name, qid, m.v)
	}
}

// readWith opens path and parses it with read.
func readWith[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f)
}
