package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/indexer"
)

func init() { subcommands = append(subcommands, newMergeCmd) }

// newMergeCmd is `gpusearch merge`: indexer.Merge, its summary on stderr
// and, with --json, its report on stdout.
func newMergeCmd() *cobra.Command {
	var (
		out              string
		all, quiet, json bool
	)
	cmd := &cobra.Command{
		Use:   "merge --out DIR [--all]",
		Short: "Merge the segments of an index as the merge policy asks (index.merge), or all into one",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			opts := indexOptions(cfg)
			opts.Progress = stderrUnlessQuiet(quiet)
			start := time.Now()
			rep, err := indexer.Merge(cmd.Context(), out, opts, all)
			if err != nil {
				return err
			}
			if !quiet {
				fmt.Fprintf(os.Stderr, "merged %d segments in %s: %d segments, %d documents\n",
					rep.Inputs, time.Since(start).Round(time.Millisecond), rep.Segments, rep.Documents)
			}
			if json {
				return writeJSON(os.Stdout, rep)
			}
			return nil
		},
	}
	addConfigFlag(cmd)
	fl := cmd.Flags()
	fl.StringVar(&out, "out", "index", "index directory")
	fl.BoolVar(&all, "all", false, "merge every segment into one, purging every deletion (as a fresh build)")
	fl.BoolVar(&quiet, "quiet", false, "no progress or summary on stderr")
	fl.BoolVar(&json, "json", false, "print the report as JSON on stdout")
	return cmd
}
