package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/load"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchLoadCmd) }

func newBenchLoadCmd() *cobra.Command {
	f := load.Flags{Options: load.Options{Progress: os.Stderr}}
	cmd := &cobra.Command{
		Use:   "load --index DIR --queries FILE --rate R --policy cpu|gpu|best|hybrid",
		Short: "Poisson arrivals through the CPU/GPU scheduler: delay, p99 and missed deadlines per policy; --sweep finds the highest sustainable rate",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			if err := f.Complete(cfg.GPU); err != nil {
				return usageError{err}
			}
			gogc := applyGC(cfg.Server.GCPercent) // as serve runs
			rep, err := f.Run(cmd.Context())
			if err != nil {
				return err
			}
			rep.GOGC = gogc
			if f.CostsFile != "" {
				if err := writeJSONFile(f.CostsFile, rep.Costs); err != nil {
					return err
				}
			}
			return writeJSON(os.Stdout, rep)
		},
	}
	addConfigFlag(cmd)
	f.AddFlags(cmd.Flags())
	cmd.Flags().Bool("json", true, "print JSON (always on)")
	cmd.MarkFlagRequired("queries")
	return cmd
}
