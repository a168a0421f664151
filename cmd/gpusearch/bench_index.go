package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench"
	"github.com/gpusearch/gpusearch/indexer"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchIndexCmd) }

func newBenchIndexCmd() *cobra.Command {
	var out string
	var workers int
	cmd := &cobra.Command{
		Use:   "index [flags] CRAWL_DIR",
		Short: "Index a crawl into a scratch directory and report documents/s, MB/s, peak RSS, size and bits per docid as JSON",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			dir := out
			if dir == "" {
				if dir, err = os.MkdirTemp("", "gpusearch-bench-index-*"); err != nil {
					return err
				}
				defer os.RemoveAll(dir)
			}
			opts := indexOptions(cfg)
			opts.Workers = pick(cmd.Flags().Changed("workers"), workers, opts.Workers)
			rep, err := indexer.Build(cmd.Context(), args[0], dir, opts)
			if err != nil {
				return err
			}
			s := bench.SummarizeIndex(rep, dir)
			s.MemoryBudgetMB = cfg.Index.MemoryBudgetMB
			return writeJSON(os.Stdout, s)
		},
	}
	addConfigFlag(cmd)
	cmd.Flags().StringVar(&out, "out", "", "keep the index here (default: a removed scratch directory)")
	cmd.Flags().IntVar(&workers, "workers", 0, "parsing goroutines (0 = every core)")
	cmd.Flags().Bool("json", true, "print JSON (always on)")
	return cmd
}
