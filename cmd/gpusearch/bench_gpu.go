package main

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/gpubench"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchGPUCmd) }

// gpuBenchSubcommands is filled by each bench_gpu_*.go file's init, and
// by this file with decode.
var gpuBenchSubcommands = []func() *cobra.Command{newBenchGPUDecodeCmd}

func newBenchGPUCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gpu",
		Short: "GPU benchmarks (build with -tags cuda): decode, queries, multi (several GPUs), cache (its simulation needs no GPU)",
	}
	for _, mk := range gpuBenchSubcommands {
		cmd.AddCommand(mk())
	}
	return cmd
}

func newBenchGPUDecodeCmd() *cobra.Command {
	o := gpubench.DecodeOptions{Progress: os.Stderr}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "decode [flags]",
		Short: "Table 3 of Mallia et al. (Uniform lists, GPU vs CPU decode, docids and gaps) against the measured copy bandwidth; with --index, a real index's columns",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			if err := o.Complete(cmd.Flags(), cfg.GPU); err != nil {
				return usageError{err}
			}
			rep, err := gpubench.Decode(o)
			if err != nil {
				return err
			}
			if asJSON {
				rep.Print(os.Stderr)
				return writeJSON(os.Stdout, rep)
			}
			rep.Print(os.Stdout)
			return nil
		},
	}
	addConfigFlag(cmd)
	o.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON to stdout (the table goes to stderr)")
	return cmd
}

// gpuBench is what a bench gpu subcommand's flags do: check themselves and
// run, returning a report that prints itself as a table.
type gpuBench[R interface{ Print(io.Writer) }] interface {
	Complete() error
	Run(context.Context) (R, error)
}

// runGPUBench is a bench gpu subcommand's RunE: it completes f, records
// the command line in *command, runs f and prints its report, as a table
// on stdout, or with asJSON as JSON on stdout and the table on stderr.
func runGPUBench[R interface{ Print(io.Writer) }](f gpuBench[R], command *string, asJSON *bool) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		if err := f.Complete(); err != nil {
			return usageError{err}
		}
		*command = "gpusearch " + strings.Join(os.Args[1:], " ")
		rep, err := f.Run(cmd.Context())
		if err != nil {
			return err
		}
		if *asJSON {
			rep.Print(os.Stderr)
			return writeJSON(os.Stdout, rep)
		}
		rep.Print(os.Stdout)
		return nil
	}
}
