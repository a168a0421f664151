package queries

import (
	"context"
	"errors"
	"runtime"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpusearch/gpusearch/bench/args"
	"github.com/gpusearch/gpusearch/index"
)

// DefaultEngines are the engines bench queries measures by default:
// every CPU algorithm, and the bitmap baseline without and with its cache.
var DefaultEngines = []string{"exhaustive", "daat", "maxscore", "wand", "bmw", "bitmap-nocache", "bitmap"}

// Flags are bench queries' command line: the harness's options and what
// Flags.Run opens.
type Flags struct {
	Options
	Index, Queries, Mode, Engines string
	Goroutines                    int // --threads, 0 for 1 and GOMAXPROCS
	Memory                        string
	memory                        index.Memory // Memory parsed
}

// AddFlags declares bench queries' flags on fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Index, "index", "index", "index directory; several, comma-separated, are measured interleaved on one thread (runs of 32 queries on each index in turn), a row per index")
	fs.StringVar(&f.Queries, "queries", "", "queries file (required)")
	fs.StringVar(&f.Mode, "mode", "and,or,andor", "comma-separated modes")
	fs.StringVar(&f.Engines, "engine", "", "comma-separated engines of the registry (default: every CPU algorithm, bitmap-nocache and bitmap)")
	fs.IntVar(&f.K, "k", 10, "results per query")
	fs.IntVar(&f.Goroutines, "threads", 0, "concurrent searches (0: rows for 1 and GOMAXPROCS)")
	fs.DurationVar(&f.MinTime, "min-time", time.Second, "least measured time per row")
	fs.StringVar(&f.Memory, "memory", "auto", "where the postings and query tables live, as server.index_memory: auto, mapped or huge")
}

// Complete checks the sizes and parses the modes; no --threads means a
// row for 1 goroutine and one for GOMAXPROCS.
func (f *Flags) Complete() error {
	if f.Queries == "" {
		return errors.New("bench queries: --queries is required")
	}
	if f.K <= 0 {
		return errors.New("bench queries: --k must be positive")
	}
	if f.Goroutines < 0 {
		return errors.New("bench queries: --threads must not be negative")
	}
	if f.Interleave = len(args.List(f.Index)) > 1; f.Interleave && f.Goroutines > 1 {
		return errors.New("bench queries: several --index are measured on one thread: --threads must be 1")
	}
	var err error
	if f.memory, err = index.ParseMemory(f.Memory); err != nil {
		return err
	}
	if f.Modes, err = args.Modes(f.Mode); err != nil {
		return err
	}
	f.Threads = []int{f.Goroutines}
	if f.Interleave {
		f.Threads = []int{1}
	} else if f.Goroutines == 0 {
		f.Threads = []int{1}
		if n := runtime.GOMAXPROCS(0); n > 1 {
			f.Threads = append(f.Threads, n)
		}
	}
	return nil
}

// Run reads the queries, opens the indexes and, with open, the engines
// on each, and measures.
func (f *Flags) Run(ctx context.Context, open args.OpenFunc) (*Report, error) {
	texts, err := args.Texts(f.Queries)
	if err != nil {
		return nil, err
	}
	o := f.Options
	o.Texts = texts
	names := args.List(f.Engines)
	if len(names) == 0 {
		names = DefaultEngines
	}
	var es []Engine
	for _, dir := range args.List(f.Index) {
		ix, err := index.OpenWith(dir, f.memory)
		if err != nil {
			return nil, err
		}
		defer ix.Close()
		for _, name := range names {
			e, closeEngine, err := open(ix, name)
			if err != nil {
				return nil, err
			}
			defer closeEngine()
			label := ""
			if f.Interleave {
				label = dir
			}
			es = append(es, Engine{Name: name, Engine: e, Index: label})
		}
	}
	return Run(ctx, es, o)
}
