package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"

	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newBenchCmd) }

// benchSubcommands is filled by each bench_*.go file's init.
var benchSubcommands []func() *cobra.Command

func newBenchCmd() *cobra.Command {
	var cpuProfile, traceFile string
	var profile, tracing *os.File
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Benchmarks: index, codecs, intersect, queries, gpu, http, fit, load",
		PersistentPreRunE: func(*cobra.Command, []string) error {
			var err error
			if cpuProfile != "" {
				if profile, err = os.Create(cpuProfile); err != nil {
					return err
				}
				if err := pprof.StartCPUProfile(profile); err != nil {
					return fmt.Errorf("--cpuprofile: %w", err)
				}
			}
			if traceFile != "" {
				if tracing, err = os.Create(traceFile); err != nil {
					return err
				}
				if err := trace.Start(tracing); err != nil {
					return fmt.Errorf("--trace: %w", err)
				}
			}
			return nil
		},
		PersistentPostRunE: func(*cobra.Command, []string) error {
			var err error
			if profile != nil {
				pprof.StopCPUProfile()
				err = profile.Close()
			}
			if tracing != nil {
				trace.Stop()
				if cerr := tracing.Close(); err == nil {
					err = cerr
				}
			}
			return err
		},
	}
	cmd.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the benchmark to this file (go tool pprof)")
	cmd.PersistentFlags().StringVar(&traceFile, "trace", "", "write an execution trace of the benchmark to this file (go tool trace)")
	for _, mk := range benchSubcommands {
		cmd.AddCommand(mk())
	}
	return cmd
}
