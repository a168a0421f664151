package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench"
	"github.com/gpusearch/gpusearch/indexer"
)

func init() { subcommands = append(subcommands, newSplitCmd) }

// newSplitCmd is `gpusearch split`: indexer.Split, its summary on stderr
// and, with --json, its report on stdout.
func newSplitCmd() *cobra.Command {
	var (
		shards             int
		quiet, json, force bool
	)
	cmd := &cobra.Command{
		Use:   "split --shards N IN_INDEX OUT_DIR",
		Short: "Split an index into a sharded collection: N shards of URL ranges, each scored under the whole collection's statistics",
		Long: `split writes the documents of IN_INDEX (an index, segmented or not) into
OUT_DIR as a sharded collection: OUT_DIR/shard-00 ... shard-(N-1), each an
index of one URL range of balanced document count (a crawl file's
documents stay in one shard) that stores the whole collection's
statistics (collection.bin) and scores with them, so that the shards' top
k, merged, are IN_INDEX's; then OUT_DIR/shards.json, the manifest that
makes the collection exist. gpusearch serve OUT_DIR serves every shard,
serve OUT_DIR/shard-03 one of them.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if shards < 1 {
				return usagef("split: --shards %d: want at least 1", shards)
			}
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			opts := indexOptions(cfg)
			opts.Force = force
			opts.Progress = stderrUnlessQuiet(quiet)
			rep, err := indexer.Split(cmd.Context(), args[0], args[1], shards, opts)
			if err != nil {
				return forceHint(err)
			}
			return reportShards(rep, 0, quiet, json)
		},
	}
	addConfigFlag(cmd)
	fl := cmd.Flags()
	fl.IntVar(&shards, "shards", 2, "number of shards")
	fl.BoolVar(&force, "force", false, forceUsage)
	fl.BoolVar(&quiet, "quiet", false, "no progress or summary on stderr")
	fl.BoolVar(&json, "json", false, "print the report as JSON on stdout")
	return cmd
}

// reportShards prints a sharded build's or split's summary on stderr
// unless quiet, and its JSON on stdout with asJSON.
func reportShards(rep indexer.ShardsReport, budgetMB int64, quiet, asJSON bool) error {
	s := bench.SummarizeShards(rep)
	s.MemoryBudgetMB = budgetMB
	if !quiet {
		printProblems(rep.Report)
		fmt.Fprintf(os.Stderr, "wrote %d documents as %d shards of collection %s in %s (split %s): %d postings, %.2f bits/docid, index %.1f MB, collection statistics %.1f KB, peak RSS %.0f MB\n",
			rep.Manifest.Docs, len(rep.Manifest.Shards), rep.Manifest.Collection, rep.Elapsed.Round(time.Millisecond), rep.Split.Round(time.Millisecond),
			s.Postings, s.BitsPerDocID, float64(s.IndexBytes)/1e6, float64(s.CollectionBytes)/1e3, s.PeakRSSMB)
		for _, sh := range s.Shards {
			fmt.Fprintf(os.Stderr, "  %s  docids %d..%d  %d terms  %.1f MB\n", sh.Dir, sh.FirstDoc, uint64(sh.FirstDoc)+sh.Docs-1, sh.Terms, float64(sh.Bytes)/1e6)
		}
	}
	if asJSON {
		return writeJSON(os.Stdout, s)
	}
	return nil
}
