package httpload

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpusearch/gpusearch/bench/args"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// Flags are bench http's command line: the harness's options, the
// queries file and, for the in-process run, the index.
type Flags struct {
	Options
	QueriesFile, ModeName, Index string
}

// AddFlags declares bench http's flags on fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Addr, "addr", "127.0.0.1:8080", "address of the server, HOST:PORT")
	fs.StringVar(&f.QueriesFile, "queries", "", "queries file: one per line, optionally qid<TAB>text")
	fs.IntSliceVar(&f.Concurrency, "concurrency", []int{1}, "concurrent workers; a list runs once per value, e.g. 1,4,16,64")
	fs.DurationVar(&f.Duration, "duration", 10*time.Second, "length of each run (0: until --max-requests)")
	fs.DurationVar(&f.Warmup, "warmup", time.Second, "unmeasured load before each run")
	fs.Int64Var(&f.MaxRequests, "max-requests", 0, "stop each run after this many requests (0: no bound)")
	fs.StringVar(&f.ModeName, "mode", "andor", "query mode: and, or or andor")
	fs.IntVar(&f.K, "k", 10, "results per query")
	fs.StringVar(&f.Engine, "engine", "cpu", "engine the server is asked for (and the in-process one)")
	fs.BoolVar(&f.NoSnippets, "no-snippets", false, "ask for hits without snippets (snippets=0), to measure what snippets cost")
	fs.IntVar(&f.Msearch, "msearch", 0, "send POST /msearch requests of this many queries each instead of GET /search (0: /search)")
	fs.StringVar(&f.Index, "index", "", "also run the queries in process over this index, to measure the HTTP overhead")
	fs.StringSliceVar(&f.Expect, "expect", nil, "index snapshots (the commits the server may serve during the run): check that every answer equals one of theirs (docids, URLs, scores); mismatches are mixed or wrong answers")
}

// Complete checks the bounds and parses the mode.
func (f *Flags) Complete() error {
	if f.QueriesFile == "" {
		return errors.New("--queries is required")
	}
	if f.Duration <= 0 && f.MaxRequests <= 0 {
		return errors.New("need a positive --duration or --max-requests")
	}
	if f.Msearch < 0 {
		return errors.New("--msearch must be >= 0")
	}
	if f.Msearch > 0 && len(f.Expect) > 0 {
		return errors.New("--expect checks GET /search answers: not with --msearch")
	}
	if f.K <= 0 {
		return errors.New("--k must be positive")
	}
	var err error
	if f.Mode, err = query.ParseMode(f.ModeName); err != nil {
		return err
	}
	for _, c := range f.Concurrency {
		if c <= 0 {
			return fmt.Errorf("--concurrency %d: must be positive", c)
		}
	}
	return nil
}

// Run loads the server and, with an index, runs the same queries in
// process on the engine open opens.
func (f *Flags) Run(ctx context.Context, open args.OpenFunc) (*Report, error) {
	var err error
	if f.Queries, err = ReadQueries(f.QueriesFile); err != nil {
		return nil, err
	}
	rep, err := Load(ctx, f.Options)
	if err != nil {
		return nil, err
	}
	if rep.answers != nil {
		if rep.Check, err = rep.answers.check(ctx, f.Expect, f.Options, open); err != nil {
			return nil, err
		}
		progress(f.Progress, "answers: %v matched the snapshots %q, %d matched none\n", rep.Check.Matched, rep.Check.Snapshots, rep.Check.Mismatched)
	}
	if f.Index == "" {
		return rep, nil
	}
	ix, err := index.Open(f.Index)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	eng, closeEngine, err := open(ix, f.Engine)
	if err != nil {
		return nil, err
	}
	defer closeEngine()
	in, err := InProcess(ctx, ix, eng, f.Options)
	if err != nil {
		return nil, err
	}
	rep.SetInProcess(in, f.Progress)
	return rep, nil
}
