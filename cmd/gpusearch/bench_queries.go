package main

import (
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench/queries"
	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchQueriesCmd) }

// benchQueryEngines are the engines bench queries measures by default:
// every CPU algorithm, and the bitmap baseline without and with its cache.
var benchQueryEngines = []string{"exhaustive", "daat", "maxscore", "wand", "bmw", "bitmap-nocache", "bitmap"}

func newBenchQueriesCmd() *cobra.Command {
	o := queries.Options{Progress: os.Stderr}
	var dir, file, modes, engines string
	var threads int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "queries --index DIR --queries FILE [flags]",
		Short: "Latency percentiles, queries/s on one and all cores, and work per query of the CPU engines",
		Long: `Runs every query of FILE (one per line, optionally qid<TAB>text) through each
engine and mode. A warm-up pass comes first and is not counted; then
passes repeat until --min-time has passed (at least one). Without --engine,
every CPU algorithm runs: exhaustive, daat, maxscore, wand, bmw, and the
bitmap baseline twice: "bitmap-nocache" builds each query's bitmaps (its
rows say "bitmap") and "bitmap" reads them from a warm cache (its rows'
algorithm says "bitmap-cached"); "gpu" is the GPU engine (a cuda build;
its searches are serialized). Without --threads, each engine runs on 1
goroutine and on GOMAXPROCS goroutines.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file == "" {
				return usagef("bench queries: --queries is required")
			}
			if o.K <= 0 {
				return usagef("bench queries: --k must be positive")
			}
			if threads < 0 {
				return usagef("bench queries: --threads must not be negative")
			}
			var err error
			if o.Modes, err = parseModes(modes); err != nil {
				return err
			}
			o.Threads = []int{threads}
			if threads == 0 {
				o.Threads = []int{1}
				if n := runtime.GOMAXPROCS(0); n > 1 {
					o.Threads = append(o.Threads, n)
				}
			}
			lines, err := readQueries(file)
			if err != nil {
				return err
			}
			for _, l := range lines {
				o.Texts = append(o.Texts, l.Text)
			}
			ix, err := index.Open(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			names := splitList(engines)
			if len(names) == 0 {
				names = benchQueryEngines
			}
			es := make([]queries.Engine, len(names))
			for i, name := range names {
				e, closeEngine, err := openEngine(ix, config.GPU{Devices: []int{0}}, name)
				if err != nil {
					return err
				}
				defer closeEngine()
				es[i] = queries.Engine{Name: name, Engine: e}
			}
			rep, err := queries.Run(cmd.Context(), es, o)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(os.Stdout, rep)
			}
			return rep.Print(os.Stdout)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&dir, "index", "index", "index directory")
	fl.StringVar(&file, "queries", "", "queries file (required)")
	fl.StringVar(&modes, "mode", "and,or,andor", "comma-separated modes")
	fl.StringVar(&engines, "engine", "", "comma-separated engines of the registry (default: every CPU algorithm, bitmap-nocache and bitmap)")
	fl.IntVar(&o.K, "k", 10, "results per query")
	fl.IntVar(&threads, "threads", 0, "concurrent searches (0: rows for 1 and GOMAXPROCS)")
	fl.DurationVar(&o.MinTime, "min-time", time.Second, "least measured time per row")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
