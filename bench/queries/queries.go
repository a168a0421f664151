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

// Engine is an engine to measure and the registry name it was opened by.
type Engine struct {
	Name   string
	Engine query.Engine
}

// Options are bench queries' settings.
type Options struct {
	Texts    []string // the queries file's query texts
	Modes    []query.Mode
	K        int
	Threads  []int         // a row per engine, mode and thread count
	MinTime  time.Duration // least measured time per row
	Progress io.Writer
}

// Report is what bench queries --json prints.
type Report struct {
	Results []Row `json:"results"`
}

// Row is one engine, mode and thread count: latency over every query
// run, throughput, and the work per query.
type Row struct {
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
	fmt.Fprintln(tw, "engine\talgorithm\tmode\tthreads\tqueries\tmean_us\tp50_us\tp95_us\tp99_us\tcpu_us\tqps\tpostings\tblocks\t")
	for _, r := range rep.Results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f\t%.0f\t%.1f\t\n", r.Engine, r.Algorithm, r.Mode, r.Threads,
			r.Queries, r.MeanUS, r.P50US, r.P95US, r.P99US, r.CPUUS, r.QPS, r.PostingsScored, r.BlocksDecoded)
	}
	return tw.Flush()
}

// measure runs one warm-up pass over qs, then passes on threads
// goroutines until minTime has passed, and summarizes the measured runs.
func measure(ctx context.Context, e query.Engine, qs []query.Query, threads int, minTime time.Duration) (Row, error) {
	row := Row{Queries: len(qs)}
	algos := map[string]bool{}
	for _, q := range qs {
		res, err := e.Search(ctx, q)
		if err != nil {
			return row, err
		}
		algos[res.Stats.Algorithm] = true
	}
	row.Algorithm = strings.Join(slices.Sorted(maps.Keys(algos)), "|")
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
					c0, t0 := latency.ThreadCPU(), time.Now()
					res, err := e.Search(ctx, qs[i])
					t.lat = append(t.lat, time.Since(t0))
					t.cpu += latency.ThreadCPU() - c0
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
	return row, nil
}
