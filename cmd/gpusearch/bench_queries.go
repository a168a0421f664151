package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchQueriesCmd) }

// benchQueriesFlags are bench queries' flags.
type benchQueriesFlags struct {
	index, queries, modes, engines string
	k, threads                     int
	minTime                        time.Duration
	json                           bool
}

// queryBenchRow is one engine, mode and thread count: latency over every
// query run, throughput, and the work per query.
type queryBenchRow struct {
	Engine         string  `json:"engine"`
	Algorithm      string  `json:"algorithm"`
	Mode           string  `json:"mode"`
	Threads        int     `json:"threads"`
	Queries        int     `json:"queries"` // distinct queries in the file
	Runs           int     `json:"runs"`    // queries run, passes times queries
	MeanUS         float64 `json:"mean_us"`
	P50US          float64 `json:"p50_us"`
	P95US          float64 `json:"p95_us"`
	P99US          float64 `json:"p99_us"`
	CPUUS          float64 `json:"cpu_us"` // mean CPU time of the searching thread
	QPS            float64 `json:"qps"`
	PostingsScored float64 `json:"postings_scored"` // per query
	BlocksDecoded  float64 `json:"blocks_decoded"`  // per query
	BlocksSkipped  float64 `json:"blocks_skipped"`  // per query
}

// benchCachedBitmap is the bench-only engine name of the bitmap baseline
// with a warm cache; "bitmap" here builds every query's bitmaps.
const benchCachedBitmap = "bitmap-cached"

func newBenchQueriesCmd() *cobra.Command {
	var f benchQueriesFlags
	cmd := &cobra.Command{
		Use:   "queries --index DIR --queries FILE [flags]",
		Short: "Latency percentiles, queries/s on one and all cores, and work per query of the CPU engines",
		Long: `Runs every query of FILE (one per line, optionally qid<TAB>text) through each
CPU engine and mode. A warm-up pass comes first and is not counted; then
passes repeat until --min-time has passed (at least one). Without --engine,
every CPU algorithm runs: exhaustive, daat, maxscore, wand, bmw, and the
bitmap baseline twice: "bitmap" builds each query's bitmaps (cache off) and
"bitmap-cached" reads them from a warm cache; "gpu" is the GPU engine (a
cuda build; its searches are serialized). Without --threads, each engine
runs on 1 goroutine and on GOMAXPROCS goroutines.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runBenchQueries(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.index, "index", "index", "index directory")
	fl.StringVar(&f.queries, "queries", "", "queries file (required)")
	fl.StringVar(&f.modes, "mode", "and,or,andor", "comma-separated modes")
	fl.StringVar(&f.engines, "engine", "", "comma-separated engines (default: every CPU algorithm and bitmap-cached)")
	fl.IntVar(&f.k, "k", 10, "results per query")
	fl.IntVar(&f.threads, "threads", 0, "concurrent searches (0: rows for 1 and GOMAXPROCS)")
	fl.DurationVar(&f.minTime, "min-time", time.Second, "least measured time per row")
	fl.BoolVar(&f.json, "json", false, "print JSON")
	return cmd
}

func runBenchQueries(ctx context.Context, f benchQueriesFlags) error {
	if f.queries == "" {
		return usagef("bench queries: --queries is required")
	}
	if f.k <= 0 {
		return usagef("bench queries: --k must be positive")
	}
	if f.threads < 0 {
		return usagef("bench queries: --threads must not be negative")
	}
	modes, err := parseModes(f.modes)
	if err != nil {
		return err
	}
	names := splitList(f.engines)
	if len(names) == 0 {
		names = append(slices.Clone(query.Algorithms), benchCachedBitmap)
	}
	threads := []int{f.threads}
	if f.threads == 0 {
		threads = []int{1}
		if n := runtime.GOMAXPROCS(0); n > 1 {
			threads = append(threads, n)
		}
	}
	lines, err := readQueries(f.queries)
	if err != nil {
		return err
	}
	ix, err := index.Open(f.index)
	if err != nil {
		return err
	}
	defer ix.Close()
	engines := make([]query.Engine, len(names))
	for i, name := range names {
		if engines[i], err = benchEngine(ix, name); err != nil {
			return err
		}
		if c, ok := engines[i].(io.Closer); ok {
			defer c.Close()
		}
	}
	a := analysis.New()
	var rows []queryBenchRow
	for _, m := range modes {
		qs := make([]query.Query, len(lines))
		for i, l := range lines {
			qs[i] = query.Parse(a, l.Text, m, f.k)
		}
		for i, e := range engines {
			for _, t := range threads {
				fmt.Fprintf(os.Stderr, "bench queries: %s %s, %d thread(s)\n", names[i], m, t)
				row, err := benchEngineRun(ctx, e, qs, t, f.minTime)
				if err != nil {
					return fmt.Errorf("bench queries: engine %s, mode %s: %w", names[i], m, err)
				}
				row.Engine, row.Mode, row.Threads = names[i], string(m), t
				if names[i] == benchCachedBitmap {
					row.Engine, row.Algorithm = "bitmap", benchCachedBitmap
				}
				rows = append(rows, row)
			}
		}
	}
	if f.json {
		return writeJSON(os.Stdout, struct {
			Results []queryBenchRow `json:"results"`
		}{rows})
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "engine\talgorithm\tmode\tthreads\tqueries\tmean_us\tp50_us\tp95_us\tp99_us\tcpu_us\tqps\tpostings\tblocks\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f\t%.0f\t%.1f\t\n", r.Engine, r.Algorithm, r.Mode, r.Threads,
			r.Queries, r.MeanUS, r.P50US, r.P95US, r.P99US, r.CPUUS, r.QPS, r.PostingsScored, r.BlocksDecoded)
	}
	return tw.Flush()
}

// benchEngine makes the engine a bench name stands for: the bitmap
// baseline without a cache (every query pays for its bitmaps) or, as
// bitmap-cached, with one; gpu, the GPU engine on device 0 (a cuda build);
// else query.New's engines.
func benchEngine(ix *index.Index, name string) (query.Engine, error) {
	switch name {
	case "bitmap":
		return query.NewBitmap(ix, query.BitmapOptions{}), nil
	case benchCachedBitmap:
		return query.NewBitmap(ix, query.BitmapOptions{CacheBytes: query.DefaultBitmapCacheBytes}), nil
	case "gpu":
		e, err := gpu.NewEngine(ix, gpu.Options{})
		if err != nil {
			return nil, err
		}
		return e, nil
	}
	e, err := query.New(ix, name)
	if err != nil {
		return nil, usageError{err}
	}
	return e, nil
}

// benchEngineRun runs one warm-up pass over qs, then passes on threads
// goroutines until minTime has passed, and summarizes the measured runs.
func benchEngineRun(ctx context.Context, e query.Engine, qs []query.Query, threads int, minTime time.Duration) (queryBenchRow, error) {
	row := queryBenchRow{Queries: len(qs)}
	algos := map[string]bool{}
	for _, q := range qs {
		res, err := e.Search(ctx, q)
		if err != nil {
			return row, err
		}
		algos[res.Stats.Algorithm] = true
	}
	row.Algorithm = joinKeys(algos)
	type tally struct {
		lat                     []time.Duration
		cpu                     time.Duration
		postings, blocks, skips int64
		err                     error
	}
	tallies := make([]tally, threads)
	var elapsed time.Duration
	for passes := 0; passes == 0 || elapsed < minTime; passes++ {
		// One pass: every query once, spread over the goroutines.
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for w := range tallies {
			wg.Add(1)
			go func(t *tally) {
				defer wg.Done()
				// On its own thread, the thread's CPU clock times the
				// goroutine alone.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				for i := next.Add(1) - 1; i < int64(len(qs)) && t.err == nil; i = next.Add(1) - 1 {
					c0, t0 := threadCPU(), time.Now()
					res, err := e.Search(ctx, qs[i])
					t.lat = append(t.lat, time.Since(t0))
					t.cpu += threadCPU() - c0
					t.postings += res.Stats.PostingsScored
					t.blocks += res.Stats.BlocksDecoded
					t.skips += res.Stats.BlocksSkipped
					t.err = err
				}
			}(&tallies[w])
		}
		wg.Wait()
		elapsed += time.Since(start)
		for _, t := range tallies {
			if t.err != nil {
				return row, t.err
			}
		}
	}
	var all []time.Duration
	var sum, cpu time.Duration
	var postings, blocks, skips int64
	for _, t := range tallies {
		all = append(all, t.lat...)
		cpu += t.cpu
		for _, d := range t.lat {
			sum += d
		}
		postings += t.postings
		blocks += t.blocks
		skips += t.skips
	}
	slices.Sort(all)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	n := float64(len(all))
	row.Runs = len(all)
	row.MeanUS = us(sum) / n
	row.P50US = us(percentile(all, 0.50))
	row.P95US = us(percentile(all, 0.95))
	row.P99US = us(percentile(all, 0.99))
	row.CPUUS = us(cpu) / n
	row.QPS = n / elapsed.Seconds()
	row.PostingsScored = float64(postings) / n
	row.BlocksDecoded = float64(blocks) / n
	row.BlocksSkipped = float64(skips) / n
	return row, nil
}

// threadCPU is the CPU time the calling OS thread has used (0 where the
// clock cannot be read). On a shared machine it stays close to what the
// work would take alone, where wall time also counts waiting for a core.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// percentile is the nearest-rank p-quantile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p * float64(len(sorted))))
	return sorted[min(max(i-1, 0), len(sorted)-1)]
}

// joinKeys joins a set's members in sorted order with "|".
func joinKeys(set map[string]bool) string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, "|")
}
