package bench

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpusearch/gpusearch/bench/args"
	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index"
)

// CodecsFlags are bench codecs' command line.
type CodecsFlags struct {
	Codecs, Index       string
	Seed                uint64
	Sparse, Dense, Runs int
	MinTime             time.Duration
	Progress            io.Writer
	codecs              []codecplugins.Codec
}

// CodecsReport is what bench codecs prints.
type CodecsReport struct {
	Results []CodecResult `json:"results"`
	Seed    uint64        `json:"seed"`
}

// AddFlags declares bench codecs' flags on fs.
func (f *CodecsFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Codecs, "codecs", "", "comma-separated codecs (default: every registered codec)")
	fs.StringVar(&f.Index, "index", "", "also measure a real index's docids and frequencies")
	fs.Uint64Var(&f.Seed, "seed", 1, "seed of the synthetic generators")
	fs.IntVar(&f.Sparse, "sparse", 1<<16, "values in the sparse lists")
	fs.IntVar(&f.Dense, "dense", 1<<25, "values in the dense lists")
	fs.IntVar(&f.Runs, "runs", 5, "timed runs per measurement; the median is reported")
	fs.DurationVar(&f.MinTime, "min-time", 100*time.Millisecond, "least duration of one timed run")
}

// Complete looks the codecs up (every registered one by default).
func (f *CodecsFlags) Complete() error {
	names := codecplugins.Names()
	if f.Codecs != "" {
		names = args.List(f.Codecs)
	}
	for _, n := range names {
		c, err := codecplugins.Lookup(n)
		if err != nil {
			return err
		}
		f.codecs = append(f.codecs, c)
	}
	return nil
}

// Run measures every codec on the synthetic datasets and, with an index,
// on its docids and frequencies.
func (f *CodecsFlags) Run(ctx context.Context) (*CodecsReport, error) {
	progress(f.Progress, "generating datasets (seed %d: %d sparse, %d dense values)\n", f.Seed, f.Sparse, f.Dense)
	sets := SyntheticDatasets(f.Seed, f.Sparse, f.Dense)
	if f.Index != "" {
		ix, err := index.Open(f.Index)
		if err != nil {
			return nil, err
		}
		more, err := IndexDatasets(ix)
		ix.Close()
		if err != nil {
			return nil, err
		}
		sets = append(sets, more...)
	}
	rep := &CodecsReport{Seed: f.Seed}
	for _, ds := range sets {
		for _, c := range f.codecs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			r, err := MeasureCodec(c, ds, f.Runs, f.MinTime)
			if err != nil {
				return nil, err
			}
			if p, ok := PaperBPI(r.Codec, r.Dataset); ok {
				r.PaperBPI = &p
			}
			progress(f.Progress, "%-18s %-24s %6.2f bpi %9.0f Mis decode (list) %9.0f (block) %8.0f Mis encode\n", r.Dataset, r.Codec, r.BPI, r.DecodeMIS, r.DecodeBlockMIS, r.EncodeMIS)
			rep.Results = append(rep.Results, r)
		}
	}
	return rep, nil
}

// IntersectFlags are bench intersect's command line.
type IntersectFlags struct {
	IntersectOptions
	Engine string
}

// AddFlags declares bench intersect's flags on fs.
func (f *IntersectFlags) AddFlags(fs *pflag.FlagSet) {
	fs.IntVar(&f.MaxLen, "max-len", 1_000_000, "longest list (10000000 for the report's largest)")
	fs.Uint32Var(&f.Universe, "universe", 0, "docids are drawn below this (0: four times the longest list of each shape)")
	fs.DurationVar(&f.MinTime, "min-time", 50*time.Millisecond, "least time per algorithm and shape")
	fs.Uint64Var(&f.Seed, "seed", 1, "random seed")
	fs.StringVar(&f.Engine, "engine", "cpu", "cpu (query/intersect) or gpu (the GPU's algorithms; cuda builds)")
	fs.IntVar(&f.Device, "device", 0, "CUDA device ordinal (engine gpu)")
}

// Complete checks the engine and the lengths.
func (f *IntersectFlags) Complete() error {
	if f.Engine != "cpu" && f.Engine != "gpu" {
		return errors.New("bench intersect: --engine must be cpu or gpu")
	}
	if f.MaxLen < 100 || (f.Universe != 0 && uint64(f.MaxLen) > uint64(f.Universe)) || f.MaxLen > 1<<30 {
		return errors.New("bench intersect: --max-len must be at least 100 and at most --universe and 2^30")
	}
	f.GPU = f.Engine == "gpu"
	return nil
}
