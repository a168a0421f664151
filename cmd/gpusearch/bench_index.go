package main

import (
	"os"

	"github.com/spf13/cobra"

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
			ic := cfg.Index
			rep, err := indexer.Build(cmd.Context(), args[0], dir, indexer.Options{
				DocIDCodec: ic.DocIDCodec, FreqCodec: ic.FreqCodec, Order: ic.Order, Seed: ic.Seed,
				Workers: pick(cmd.Flags().Changed("workers"), workers, ic.Workers), MemoryBudget: ic.MemoryBudgetMB << 20,
				MaxDocBytes: ic.MaxDocBytes, Oversize: ic.Oversize, TempDir: ic.TempDir, BM25: cfg.BM25,
			})
			if err != nil {
				return err
			}
			s := summarize(rep, dir)
			s.MemoryBudgetMB = ic.MemoryBudgetMB
			return writeJSON(os.Stdout, s)
		},
	}
	addConfigFlag(cmd)
	cmd.Flags().StringVar(&out, "out", "", "keep the index here (default: a removed scratch directory)")
	cmd.Flags().IntVar(&workers, "workers", 0, "parsing goroutines (0 = every core)")
	cmd.Flags().Bool("json", true, "print JSON (always on)")
	return cmd
}
