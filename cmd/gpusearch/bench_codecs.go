package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench"
	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchCodecsCmd) }

func newBenchCodecsCmd() *cobra.Command {
	var (
		codecs, indexDir string
		seed             uint64
		sparse, dense    int
		runs             int
		minTime          time.Duration
	)
	cmd := &cobra.Command{
		Use:   "codecs [--codecs a,b] [--index DIR]",
		Short: "Bits per integer and one-core decode speed of every codec on the first paper's synthetic sets (and a real index)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			names := codecplugins.Names()
			if codecs != "" {
				names = splitList(codecs)
			}
			var cs []codecplugins.Codec
			for _, n := range names {
				c, err := codecplugins.Lookup(n)
				if err != nil {
					return usageError{err}
				}
				cs = append(cs, c)
			}
			fmt.Fprintf(os.Stderr, "generating datasets (seed %d: %d sparse, %d dense values)\n", seed, sparse, dense)
			sets := bench.SyntheticDatasets(seed, sparse, dense)
			if indexDir != "" {
				ix, err := index.Open(indexDir)
				if err != nil {
					return err
				}
				more, err := bench.IndexDatasets(ix)
				ix.Close()
				if err != nil {
					return err
				}
				sets = append(sets, more...)
			}
			var results []bench.CodecResult
			for _, ds := range sets {
				for _, c := range cs {
					if err := cmd.Context().Err(); err != nil {
						return err
					}
					r, err := bench.MeasureCodec(c, ds, runs, minTime)
					if err != nil {
						return err
					}
					if p, ok := bench.PaperBPI(r.Codec, r.Dataset); ok {
						r.PaperBPI = &p
					}
					fmt.Fprintf(os.Stderr, "%-18s %-24s %6.2f bpi %9.0f Mis decode (list) %9.0f (block) %8.0f Mis encode\n", r.Dataset, r.Codec, r.BPI, r.DecodeMIS, r.DecodeBlockMIS, r.EncodeMIS)
					results = append(results, r)
				}
			}
			return writeJSON(os.Stdout, map[string]any{"seed": seed, "results": results})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&codecs, "codecs", "", "comma-separated codecs (default: every registered codec)")
	fl.StringVar(&indexDir, "index", "", "also measure a real index's docids and frequencies")
	fl.Uint64Var(&seed, "seed", 1, "seed of the synthetic generators")
	fl.IntVar(&sparse, "sparse", 1<<16, "values in the sparse lists")
	fl.IntVar(&dense, "dense", 1<<25, "values in the dense lists")
	fl.IntVar(&runs, "runs", 5, "timed runs per measurement; the median is reported")
	fl.DurationVar(&minTime, "min-time", 100*time.Millisecond, "least duration of one timed run")
	fl.Bool("json", true, "print JSON (always on)")
	return cmd
}
