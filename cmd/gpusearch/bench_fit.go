package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/costs"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchFitCmd) }

func newBenchFitCmd() *cobra.Command {
	f := costs.FitFlags{Progress: os.Stderr}
	cmd := &cobra.Command{
		Use:   "fit --index DIR --queries FILE",
		Short: "Time every query on the CPU (and GPU), fit the scheduler's cost model, write it beside the index",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			if err := f.Complete(cmd.Flags(), cfg.GPU); err != nil {
				return usageError{err}
			}
			rep, err := f.Run(cmd.Context())
			if err != nil {
				return err
			}
			if f.Samples != "" {
				if err := writeJSONFile(f.Samples, rep.Samples); err != nil {
					return err
				}
			}
			if err := rep.Model.Save(f.Index); err != nil {
				return err
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
