package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/index"
)

func init() { subcommands = append(subcommands, newConvertCmd) }

func newConvertCmd() *cobra.Command {
	var dir, codec, freqCodec, out string
	var force bool
	cmd := &cobra.Command{
		Use:   "convert --index DIR --codec NAME --out DIR",
		Short: "Re-encode an index with other codecs; queries answer the same",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if codec == "" || out == "" {
				return usagef("convert needs --codec and --out")
			}
			if freqCodec == "" {
				freqCodec = codec
			}
			ix, err := index.Open(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			opts := index.WriterOptions{DocIDCodec: codec, FreqCodec: freqCodec, Force: force}
			if err := index.Convert(cmd.Context(), ix, out, opts); err != nil {
				return forceHint(err)
			}
			m, err := index.ReadMeta(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "converted %s (%s/%s, %.2f bits/docid) to %s (%s/%s, %.2f bits/docid)\n",
				dir, ix.Meta().DocIDCodec, ix.Meta().FreqCodec, ix.Meta().BitsPerDocID(), out, m.DocIDCodec, m.FreqCodec, m.BitsPerDocID())
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dir, "index", "index", "index to convert")
	fl.StringVar(&codec, "codec", "", "docid codec (and frequency codec unless --freq-codec)")
	fl.StringVar(&freqCodec, "freq-codec", "", "frequency codec")
	fl.StringVar(&out, "out", "", "output index directory")
	fl.BoolVar(&force, "force", false, forceUsage)
	return cmd
}
