package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchCodecsCmd) }

func newBenchCodecsCmd() *cobra.Command {
	f := bench.CodecsFlags{Progress: os.Stderr}
	cmd := &cobra.Command{
		Use:   "codecs [--codecs a,b] [--index DIR]",
		Short: "Bits per integer and one-core decode speed of every codec on the first paper's synthetic sets (and a real index)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.Complete(); err != nil {
				return usageError{err}
			}
			rep, err := f.Run(cmd.Context())
			if err != nil {
				return err
			}
			return writeJSON(os.Stdout, rep)
		},
	}
	f.AddFlags(cmd.Flags())
	cmd.Flags().Bool("json", true, "print JSON (always on)")
	return cmd
}
