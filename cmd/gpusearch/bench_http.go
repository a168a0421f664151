package main

import (
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/httpload"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchHTTPCmd) }

func newBenchHTTPCmd() *cobra.Command {
	o := httpload.Options{Progress: os.Stderr}
	var queries, mode, dir string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "http --addr HOST:PORT --queries FILE [--concurrency N,...] [--duration D] [--max-requests N] [--json]",
		Short: "Closed-loop HTTP load on a running `gpusearch serve`: queries/s and latency percentiles",
		Long: `Each of N workers sends GET /search for the next query of FILE (round-robin,
one query per line, optionally "qid<TAB>text") and waits for the answer
before sending the next, for --duration or until --max-requests answers.
A run per --concurrency value, each after a --warmup at that concurrency.
With --index, the same queries also run in this process on the same engine
over that index (analysis, search, URLs; one at a time, after the same
warm-up), and the report
gives the HTTP overhead at p50 (the concurrency-1 run's p50 minus the
in-process p50). Each run also reports the p50 of latency minus the
took_us the server put in the answer, the overhead measured request by
request. Serve with server.cache_entries: 0 to measure the engine
rather than the result cache.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if queries == "" {
				return usagef("--queries is required")
			}
			if o.Duration <= 0 && o.MaxRequests <= 0 {
				return usagef("need a positive --duration or --max-requests")
			}
			if o.K <= 0 {
				return usagef("--k must be positive")
			}
			var err error
			if o.Mode, err = query.ParseMode(mode); err != nil {
				return usageError{err}
			}
			for _, c := range o.Concurrency {
				if c <= 0 {
					return usagef("--concurrency %d: must be positive", c)
				}
			}
			if o.Queries, err = httpload.ReadQueries(queries); err != nil {
				return err
			}
			rep, err := httpload.Load(cmd.Context(), o)
			if err != nil {
				return err
			}
			if dir != "" {
				cfg, err := loadConfig(cmd)
				if err != nil {
					return err
				}
				ix, err := index.Open(dir)
				if err != nil {
					return err
				}
				defer ix.Close()
				eng, closeEngine, err := openEngine(ix, cfg.GPU, o.Engine)
				if err != nil {
					return err
				}
				defer closeEngine()
				in, err := httpload.InProcess(cmd.Context(), ix, eng, o)
				if err != nil {
					return err
				}
				rep.SetInProcess(in, os.Stderr)
			}
			if asJSON {
				return writeJSON(os.Stdout, rep)
			}
			return nil
		},
	}
	addConfigFlag(cmd)
	fl := cmd.Flags()
	fl.StringVar(&o.Addr, "addr", "127.0.0.1:8080", "address of the server, HOST:PORT")
	fl.StringVar(&queries, "queries", "", "queries file: one per line, optionally qid<TAB>text")
	fl.IntSliceVar(&o.Concurrency, "concurrency", []int{1}, "concurrent workers; a list runs once per value, e.g. 1,4,16,64")
	fl.DurationVar(&o.Duration, "duration", 10*time.Second, "length of each run (0: until --max-requests)")
	fl.DurationVar(&o.Warmup, "warmup", time.Second, "unmeasured load before each run")
	fl.Int64Var(&o.MaxRequests, "max-requests", 0, "stop each run after this many requests (0: no bound)")
	fl.StringVar(&mode, "mode", "andor", "query mode: and, or or andor")
	fl.IntVar(&o.K, "k", 10, "results per query")
	fl.StringVar(&o.Engine, "engine", "cpu", "engine the server is asked for (and the in-process one)")
	fl.StringVar(&dir, "index", "", "also run the queries in process over this index, to measure the HTTP overhead")
	fl.BoolVar(&asJSON, "json", false, "print the report as JSON on stdout")
	return cmd
}
