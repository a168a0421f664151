package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newBenchCmd) }

// benchSubcommands is filled by each bench_*.go file's init.
var benchSubcommands []func() *cobra.Command

func newBenchCmd() *cobra.Command {
	var cpuProfile string
	var profile *os.File
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Benchmarks: index, codecs, intersect, queries, gpu, http, fit, load",
		PersistentPreRunE: func(*cobra.Command, []string) error {
			if cpuProfile == "" {
				return nil
			}
			var err error
			if profile, err = os.Create(cpuProfile); err != nil {
				return err
			}
			if err := pprof.StartCPUProfile(profile); err != nil {
				profile.Close()
				return fmt.Errorf("--cpuprofile: %w", err)
			}
			return nil
		},
		PersistentPostRunE: func(*cobra.Command, []string) error {
			if profile == nil {
				return nil
			}
			pprof.StopCPUProfile()
			return profile.Close()
		},
	}
	cmd.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the benchmark to this file (go tool pprof)")
	for _, mk := range benchSubcommands {
		cmd.AddCommand(mk())
	}
	return cmd
}
