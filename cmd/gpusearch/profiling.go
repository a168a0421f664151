package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"

	"github.com/spf13/cobra"
)

// addProfiling gives cmd and its subcommands --cpuprofile and --trace:
// a CPU profile (go tool pprof) and an execution trace (go tool trace) of
// the whole run, started before it and written when it ends.
func addProfiling(cmd *cobra.Command) {
	var cpuProfile, traceFile string
	var profile, tracing *os.File
	cmd.PersistentPreRunE = func(*cobra.Command, []string) error {
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
	}
	cmd.PersistentPostRunE = func(*cobra.Command, []string) error {
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
	}
	cmd.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	cmd.PersistentFlags().StringVar(&traceFile, "trace", "", "write an execution trace of the run to this file (go tool trace)")
}
