package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/httpload"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchHTTPCmd) }

func newBenchHTTPCmd() *cobra.Command {
	f := httpload.Flags{Options: httpload.Options{Progress: os.Stderr}}
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
rather than the result cache.

With --expect SNAPSHOT,..., copies of the commits the server may serve
during the runs (an index updated or merged under load), every answer is
recorded and then checked against the CPU engine's answers over each
snapshot: docids, URLs and scores must equal one snapshot's. The report
counts the answers per snapshot, and the command fails if any matched
none (a mixed or wrong answer).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.Complete(); err != nil {
				return usageError{err}
			}
			rep, err := f.Run(cmd.Context(), func(ix *index.Index, name string) (query.Engine, func(), error) {
				cfg, err := loadConfig(cmd)
				if err != nil {
					return nil, nil, err
				}
				return openEngine(ix, cfg.GPU, name)
			})
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(os.Stdout, rep); err != nil {
					return err
				}
			}
			return rep.Check.Err()
		},
	}
	addConfigFlag(cmd)
	f.AddFlags(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON on stdout")
	return cmd
}
