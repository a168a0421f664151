// Package queries is the benchmark behind gpusearch bench queries: the
// latency percentiles, queries a second and work per query of query
// engines over a queries file, on one goroutine or several.
package queries

import (
	"context"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/bench/latency"
	"github.com/gpusearch/gpusearch/query"
)

// Engine is an engine to measure and the registry name it was opened by,
// and the index it searches where several are measured (Options.Interleave).
type Engine struct {
	Name   string
	Engine query.Engine
	Index  string
}

// Options are bench queries' settings.
type Options struct {
	Texts   []string // the queries file's query texts
	Modes   []query.Mode
	K       int
	Threads []int         // a row per engine, mode and thread count
	MinTime time.Duration // least measured time per row
	// Interleave measures the engines of each mode together on one
	// goroutine, runs of interleaveRun queries on every engine in turn
	// (the order rotating), instead of one engine after another: a load
	// that varies over the run (other processes on a shared machine) then
	// falls on every engine alike, and their ratios hold where their
	// separate timings swing. Threads is ignored.
	Interleave bool
	Progress   io.Writer
}

// Report is what bench queries --json prints.
type Report struct {
	Results []Row `json:"results"`
}

// Row is one engine, mode and thread count: latency over every query
// run, throughput, and the work per query.
type Row struct {
	Index          string  `json:"index,omitempty"` // where several indexes are measured (Options.Interleave)
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

// Run measures each engine on the queries in each mode and thread count.
func Run(ctx context.Context, engines []Engine, o Options) (*Report, error) {
	a := analysis.New()
	rep := &Report{}
	for _, m := range o.Modes {
		qs, err := query.ParseAll(a, o.Texts, m, o.K)
		if err != nil {
			return nil, err
		}
		if o.Interleave {
			if o.Progress != nil {
				fmt.Fprintf(o.Progress, "bench queries: %d engines interleaved, %s, 1 thread\n", len(engines), m)
			}
			rows, err := measureInterleaved(ctx, engines, qs, o.MinTime)
			if err != nil {
				return nil, fmt.Errorf("bench queries: mode %s: %w", m, err)
			}
			for i := range rows {
				rows[i].Engine, rows[i].Index, rows[i].Mode, rows[i].Threads = engines[i].Name, engines[i].Index, string(m), 1
			}
			rep.Results = append(rep.Results, rows...)
			continue
		}
		for _, e := range engines {
			for _, t := range o.Threads {
				if o.Progress != nil {
					fmt.Fprintf(o.Progress, "bench queries: %s %s, %d thread(s)\n", e.Name, m, t)
				}
				row, err := measure(ctx, e.Engine, qs, t, o.MinTime)
				if err != nil {
					return nil, fmt.Errorf("bench queries: engine %s, mode %s: %w", e.Name, m, err)
				}
				row.Engine, row.Mode, row.Threads = e.Name, string(m), t
				// The bitmap baseline keeps the names its rows had before
				// the registry: "bitmap" without a cache, "bitmap-cached"
				// the algorithm of the one with.
				switch e.Name {
				case "bitmap-nocache":
					row.Engine = "bitmap"
				case "bitmap":
					row.Algorithm = "bitmap-cached"
				}
				rep.Results = append(rep.Results, row)
			}
		}
	}
	return rep, nil
}

// Print writes the report as a table.
func (rep *Report) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// An index column where several indexes were measured.
	indexes := slices.ContainsFunc(rep.Results, func(r Row) bool { return r.Index != "" })
	if indexes {
		fmt.Fprint(tw, "index\t")
	}
	fmt.Fprintln(tw, "engine\talgorithm\tmode\tthreads\tqueries\tmean_us\tp50_us\tp95_us\tp99_us\tcpu_us\tqps\tpostings\tblocks\t")
	for _, r := range rep.Results {
		if indexes {
			fmt.Fprintf(tw, "%s\t", r.Index)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f\t%.0f\t%.1f\t\n", r.Engine, r.Algorithm, r.Mode, r.Threads,
			r.Queries, r.MeanUS, r.P50US, r.P95US, r.P99US, r.CPUUS, r.QPS, r.PostingsScored, r.BlocksDecoded)
	}
	return tw.Flush()
}

// tally is what measured runs of one engine add up.
type tally struct {
	lat                     []time.Duration
	cpu                     time.Duration
	postings, blocks, skips int64
	err                     error
}

// run times one search of q on e, on the calling goroutine (locked to its
// thread, whose CPU clock then times it alone), into t.
func (t *tally) run(ctx context.Context, e query.Engine, q query.Query) {
	c0, t0 := latency.ThreadCPU(), time.Now()
	res, err := e.Search(ctx, q)
	t.lat = append(t.lat, time.Since(t0))
	t.cpu += latency.ThreadCPU() - c0
	t.postings += res.Stats.PostingsScored
	t.blocks += res.Stats.BlocksDecoded
	t.skips += res.Stats.BlocksSkipped
	t.err = err
}

// warmUp runs qs once on e, unmeasured, and names the algorithms that
// answered.
func warmUp(ctx context.Context, e query.Engine, qs []query.Query) (string, error) {
	algos := map[string]bool{}
	for _, q := range qs {
		res, err := e.Search(ctx, q)
		if err != nil {
			return "", err
		}
		algos[res.Stats.Algorithm] = true
	}
	return strings.Join(slices.Sorted(maps.Keys(algos)), "|"), nil
}

// interleaveRun is how many queries an engine answers in a row when
// several are measured together (Options.Interleave). A query run on one
// engine right after another found the branch predictor trained by the
// first on the same documents, which a server's next query does not:
// back to back, all RFCs' OR top 10 took 21 us at the p50, in turn 37
// (2-core dev box). Runs of 32 queries leave the predictor to forget a
// query between its turns, and are short enough that a slow spell of a
// shared machine falls on every engine.
const interleaveRun = 32

// measureInterleaved is measure on one goroutine for several engines at
// once (Options.Interleave): a warm-up pass on each, then passes until
// each engine has been measured for minTime, each run of interleaveRun
// queries answered by every engine in turn, the first engine rotating
// from run to run and pass to pass.
func measureInterleaved(ctx context.Context, engines []Engine, qs []query.Query, minTime time.Duration) ([]Row, error) {
	rows := make([]Row, len(engines))
	for i, e := range engines {
		rows[i].Queries = len(qs)
		var err error
		if rows[i].Algorithm, err = warmUp(ctx, e.Engine, qs); err != nil {
			return nil, err
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tallies := make([]tally, len(engines))
	n := len(engines)
	var elapsed time.Duration
	for pass := 0; pass == 0 || elapsed < time.Duration(n)*minTime; pass++ {
		start := time.Now()
		for r, from := 0, 0; from < len(qs); r, from = r+1, from+interleaveRun {
			run := qs[from:min(from+interleaveRun, len(qs))]
			for j := range n {
				i := (j + r + pass) % n
				for _, q := range run {
					if tallies[i].run(ctx, engines[i].Engine, q); tallies[i].err != nil {
						return nil, tallies[i].err
					}
				}
			}
		}
		elapsed += time.Since(start)
	}
	for i := range rows {
		// Each engine had about 1/n of the wall time.
		summarize(&rows[i], []tally{tallies[i]}, elapsed/time.Duration(n))
	}
	return rows, nil
}

// measure runs one warm-up pass over qs, then passes on threads
// goroutines until minTime has passed, and summarizes the measured runs.
func measure(ctx context.Context, e query.Engine, qs []query.Query, threads int, minTime time.Duration) (Row, error) {
	row := Row{Queries: len(qs)}
	var err error
	if row.Algorithm, err = warmUp(ctx, e, qs); err != nil {
		return row, err
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
					t.run(ctx, e, qs[i])
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
	summarize(&row, tallies, elapsed)
	return row, nil
}

// summarize fills row's latencies, rates and work per query from the
// tallies of its measured runs, which took elapsed.
func summarize(row *Row, tallies []tally, elapsed time.Duration) {
	var all []time.Duration
	var cpu time.Duration
	var postings, blocks, skips int64
	for _, t := range tallies {
		all = append(all, t.lat...)
		cpu += t.cpu
		postings += t.postings
		blocks += t.blocks
		skips += t.skips
	}
	s := latency.Summarize(all)
	n := float64(len(all))
	row.Runs = len(all)
	row.MeanUS, row.P50US, row.P95US, row.P99US = s.MeanUS, s.P50US, s.P95US, s.P99US
	row.CPUUS = latency.US(cpu) / n
	row.QPS = n / elapsed.Seconds()
	row.PostingsScored = float64(postings) / n
	row.BlocksDecoded = float64(blocks) / n
	row.BlocksSkipped = float64(skips) / n
}
