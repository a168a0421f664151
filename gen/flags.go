package gen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// IndexFlags are gen index's command line: Generate's options, the
// index to write and the parameters to read.
type IndexFlags struct {
	Options
	Out, Fit string
	AheadMB  int64 // MiB of lists generated ahead of the writer
	fs       *pflag.FlagSet
}

// AddFlags declares gen index's flags on fs.
func (f *IndexFlags) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&f.Docs, "docs", 0, "number of documents")
	fs.Uint64Var(&f.Seed, "seed", 1, "random seed: the collection is a function of seed, docs, order and parameters")
	fs.StringVar(&f.Out, "out", "", "output index directory")
	fs.StringVar(&f.Order, "order", "url", "docid order: url (sites contiguous) or random")
	fs.StringVar(&f.DocIDCodec, "codec", "bp128", "codec for docids (and frequencies unless --freq-codec)")
	fs.StringVar(&f.FreqCodec, "freq-codec", "", "codec for frequencies")
	fs.StringVar(&f.Fit, "fit", "", "parameters from `gen fit` (JSON file); default: the built-in Gov2-like parameters")
	fs.IntVar(&f.Workers, "workers", 0, "generating goroutines (0 = every core)")
	fs.Int64Var(&f.AheadMB, "ahead-mb", 128, "MiB of posting lists generated ahead of the index writer (of the slowest shard writer, with --shards)")
	fs.BoolVar(&f.Force, "force", false, "replace the index in --out even with one of fewer than half its documents")
	fs.IntVar(&f.Shards, "shards", 0, "write --out as a sharded collection of N shards (URL ranges of balanced document counts, each scored under the whole collection's statistics; shards.json names them), each shard written by its own writer at once; url order only")
	f.fs = fs
}

// Complete checks the flags.
func (f *IndexFlags) Complete() error {
	switch {
	case f.Docs < 1:
		return errors.New("gen index: --docs must be at least 1")
	case f.Out == "":
		return errors.New("gen index: --out is required")
	case f.Order != "url" && f.Order != "random":
		return fmt.Errorf("gen index: --order %q: want url or random", f.Order)
	case f.fs != nil && f.fs.Changed("shards") && f.Shards < 1:
		return fmt.Errorf("gen index: --shards %d: want at least 1", f.Shards)
	case f.Shards > 0 && f.Order != "url":
		return fmt.Errorf("gen index: --shards needs url order (--order url): a shard is a range of URLs, and --order %s scatters every URL range over the docids", f.Order)
	case f.Shards > f.Docs:
		return fmt.Errorf("gen index: --shards %d of --docs %d: at most one shard per document", f.Shards, f.Docs)
	}
	return nil
}

// Run reads the parameters (the defaults without Fit) and generates the
// index.
func (f *IndexFlags) Run(ctx context.Context) (Report, error) {
	o := f.Options
	o.Params, o.AheadPostings = DefaultParams(), f.AheadMB<<20/8
	if f.Fit != "" {
		var err error
		if o.Params, err = ReadParams(f.Fit); err != nil {
			return Report{}, err
		}
	}
	return Generate(ctx, f.Out, o)
}

// AddFlags declares gen fit's flags on fs.
func (o *FitOptions) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.Workers, "workers", 0, "goroutines (0 = every core)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the simulated collections")
	fs.IntVar(&o.Iterations, "iterations", 8, "simulation rounds at most")
}

// AddFlags declares gen queries' flags on fs.
func (o *QueryOptions) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.N, "n", 1000, "number of queries")
	fs.Uint64Var(&o.Seed, "seed", 1, "random seed")
	fs.Float64Var(&o.PostingsPerDoc, "postings-per-doc", Gov2PostingsPerDoc, "mean postings per query, per document of the collection")
}

// WriteQueries writes qs as a queries file: qid<TAB>terms lines.
func WriteQueries(w io.Writer, qs []Query) error {
	bw := bufio.NewWriter(w)
	for _, q := range qs {
		fmt.Fprintf(bw, "%s\t%s\n", q.ID, strings.Join(q.Terms, " "))
	}
	return bw.Flush()
}
