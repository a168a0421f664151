package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/gpubench"
	"github.com/gpusearch/gpusearch/gpu"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchGPUCmd) }

// gpuBenchSubcommands is filled by each bench_gpu_*.go file's init, and
// by this file with decode.
var gpuBenchSubcommands = []func() *cobra.Command{newBenchGPUDecodeCmd}

func newBenchGPUCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gpu",
		Short: "GPU benchmarks (build with -tags cuda): decode, queries",
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
			if !cmd.Flags().Changed("device") && len(cfg.GPU.Devices) > 0 {
				o.Device = cfg.GPU.Devices[0]
			}
			if o.MinLog < 1 || o.MaxLog > 28 || o.MinLog > o.MaxLog || o.Repeats < 1 || o.CPURepeats < 1 {
				return usagef("bench gpu decode: need 1 <= --min-log <= --max-log <= 28 and positive repeats")
			}
			for _, c := range o.Codecs {
				if !gpu.Decodable(c) {
					return usagef("bench gpu decode: %q has no GPU decoder", c)
				}
			}
			o.MemoryBudgetMB = cfg.GPU.MemoryBudgetMB
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
	f := cmd.Flags()
	f.StringVar(&o.Index, "index", "", "also decode this index's docid and frequency columns (GPU codecs only)")
	f.StringSliceVar(&o.Codecs, "codecs", []string{"gpu-bp128", "gpu-bp256", "gpu-vbyte128", "gpu-vbyte1024", "gpu-pfordelta", "gpu-rice"}, "formats to measure")
	f.IntVar(&o.MinLog, "min-log", 16, "shortest synthetic list: 2^min-log integers")
	f.IntVar(&o.MaxLog, "max-log", 25, "longest synthetic list: 2^max-log integers")
	f.IntVar(&o.Repeats, "repeats", 11, "timed samples per measurement (the median is reported)")
	f.IntVar(&o.CPURepeats, "cpu-repeats", 3, "timed CPU decodes per measurement (the median is reported)")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the synthetic lists")
	f.IntVar(&o.Device, "device", 0, "CUDA device ordinal (default: the config's first)")
	f.Int64Var(&o.CopyMB, "copy-mb", 1024, "size of the device-to-device copy that measures bandwidth")
	f.IntVar(&o.TopLists, "top-lists", 100, "with --index: also decode the longest lists, one launch each")
	f.BoolVar(&asJSON, "json", false, "print JSON to stdout (the table goes to stderr)")
	return cmd
}
