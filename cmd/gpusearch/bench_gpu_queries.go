package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

func init() { gpuBenchSubcommands = append(gpuBenchSubcommands, newBenchGPUQueriesCmd) }

// gpuQueriesOptions are bench gpu queries' flags.
type gpuQueriesOptions struct {
	index, queries, modes, cpu, batches string
	topk                                string
	k, device, callers                  int
	bigPostings                         int64
	minTime                             time.Duration
	json                                bool
}

func newBenchGPUQueriesCmd() *cobra.Command {
	var o gpuQueriesOptions
	cmd := &cobra.Command{
		Use:   "queries --index DIR --queries FILE [flags]",
		Short: "GPU query engine against CPU engines on the same queries: latency on all queries and on those over --big-postings, speedups, phase breakdown, batched throughput, answers checked against the exhaustive scorer",
		Long: `Runs every query of FILE, in each mode, through the GPU engine and the CPU
engines of --cpu, one query at a time on one thread: a first pass (its answers
are kept, and the GPU's compared with the exhaustive scorer's when it runs),
then passes until --min-time. Latency is each query's mean over the passes;
mean, p50 and p99 are over queries, for all of them and for the "big" ones,
whose lists hold over --big-postings postings in all. The GPU's device time
by phase comes from one profiled run per query (CUDA events between phases),
and batched throughput from SearchBatch over consecutive chunks of the
queries, for each size of --batch, with --callers goroutines taking the
chunks in turn (as the scheduler's GPU workers do: their runs overlap on
the device).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.queries == "" {
				return usagef("bench gpu queries: --queries is required")
			}
			if o.k <= 0 || o.callers <= 0 || o.minTime < 0 || o.bigPostings < 0 {
				return usagef("bench gpu queries: --k and --callers must be positive, --min-time and --big-postings not negative")
			}
			batches, err := parseBatchSizes(o.batches)
			if err != nil {
				return usageError{err}
			}
			ix, err := index.Open(o.index)
			if err != nil {
				return err
			}
			defer ix.Close()
			e, err := gpu.NewEngine(ix, gpu.Options{Device: o.device, TopK: o.topk})
			if err != nil {
				return err
			}
			defer e.Close()
			rep, err := benchGPUQueries(cmd.Context(), ix, e, o, batches, os.Stderr)
			if err != nil {
				return err
			}
			rep.Device, rep.Index.Reencoded = e.Device(), e.Reencoded()
			if o.json {
				printGPUQueries(os.Stderr, rep)
				return writeJSON(os.Stdout, rep)
			}
			printGPUQueries(os.Stdout, rep)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.index, "index", "index", "index directory")
	fl.StringVar(&o.queries, "queries", "", "queries file (required)")
	fl.StringVar(&o.modes, "mode", "and,or", "comma-separated modes")
	fl.StringVar(&o.cpu, "cpu", "exhaustive,bmw,daat", "comma-separated CPU engines to compare with")
	fl.StringVar(&o.batches, "batch", "1,8,32,128", "comma-separated batch sizes for throughput")
	fl.IntVar(&o.k, "k", 10, "results per query")
	fl.IntVar(&o.callers, "callers", 1, "goroutines calling SearchBatch at once in the throughput runs")
	fl.IntVar(&o.device, "device", 0, "CUDA device ordinal")
	fl.StringVar(&o.topk, "topk", "radix", "top-k method of single OR queries: radix (radix select) or tree (the paper's max tree)")
	fl.Int64Var(&o.bigPostings, "big-postings", 1000000, "a query is big when its lists hold more postings than this")
	fl.DurationVar(&o.minTime, "min-time", time.Second, "least measured time per engine and mode")
	fl.BoolVar(&o.json, "json", false, "print JSON to stdout (the table goes to stderr)")
	return cmd
}

func parseBatchSizes(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n < 1 {
			return nil, fmt.Errorf("bench gpu queries: bad batch size %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// gpuQueryEngine is what the benchmark needs of the GPU engine.
type gpuQueryEngine interface {
	query.BatchEngine
	Profile(ctx context.Context, q query.Query) (query.Result, gpu.Phases, error)
}

// gpuQueriesReport is bench gpu queries' JSON.
type gpuQueriesReport struct {
	Device      gpu.DeviceInfo  `json:"device"`
	Index       gpuQueriesIndex `json:"index"`
	Queries     int             `json:"queries"`
	K           int             `json:"k"`
	TopK        string          `json:"topk"`
	BigPostings int64           `json:"big_postings"`
	Modes       []gpuModeReport `json:"modes"`
	Notes       []string        `json:"notes"`
	Elapsed     float64         `json:"elapsed_s"`
	Command     string          `json:"command"`
	Date        string          `json:"date"`
}

type gpuQueriesIndex struct {
	Dir        string `json:"dir"`
	Docs       int    `json:"docs"`
	Postings   uint64 `json:"postings"`
	DocIDCodec string `json:"docid_codec"`
	FreqCodec  string `json:"freq_codec"`
	Reencoded  bool   `json:"reencoded"`
}

// gpuModeReport is one mode's results.
type gpuModeReport struct {
	Mode         string          `json:"mode"`
	BigQueries   int             `json:"big_queries"`
	MeanPostings float64         `json:"mean_postings"`
	Latency      []gpuLatencyRow `json:"latency"`
	Speedups     []gpuSpeedupRow `json:"speedups"`
	Phases       []gpuPhaseRow   `json:"phases"`
	Batches      []gpuBatchRow   `json:"batches"`
	Checked      int             `json:"checked"`    // GPU answers compared with the exhaustive scorer's
	Mismatches   int             `json:"mismatches"` // of which differed
	BatchDiffers int             `json:"batch_differs"`
}

// gpuLatencyRow is one engine on one subset of the queries.
type gpuLatencyRow struct {
	Engine        string  `json:"engine"`
	Algorithm     string  `json:"algorithm"`
	Subset        string  `json:"subset"` // all or big
	Queries       int     `json:"queries"`
	MeanUS        float64 `json:"mean_us"`
	P50US         float64 `json:"p50_us"`
	P99US         float64 `json:"p99_us"`
	BlocksDecoded float64 `json:"blocks_decoded"` // per query
	Postings      float64 `json:"postings_scored"`
}

// gpuSpeedupRow is a CPU engine's latency over the GPU's on a subset.
type gpuSpeedupRow struct {
	Versus string  `json:"versus"`
	Subset string  `json:"subset"`
	Mean   float64 `json:"mean"` // CPU mean / GPU mean
	P50    float64 `json:"p50"`
}

// gpuPhaseRow is the GPU's mean device time per phase on a subset.
type gpuPhaseRow struct {
	Subset  string             `json:"subset"`
	US      map[string]float64 `json:"us"`
	TotalUS float64            `json:"total_us"`
}

type gpuBatchRow struct {
	Batch   int     `json:"batch"`
	Callers int     `json:"callers"`
	QPS     float64 `json:"qps"`
}

// benchGPUQueries measures g and the --cpu engines on the queries file.
func benchGPUQueries(ctx context.Context, ix *index.Index, g gpuQueryEngine, o gpuQueriesOptions, batches []int, logw io.Writer) (*gpuQueriesReport, error) {
	began := time.Now()
	lines, err := readQueries(o.queries)
	if err != nil {
		return nil, err
	}
	dc, fc := ix.Codecs()
	rep := &gpuQueriesReport{
		Index:   gpuQueriesIndex{Dir: o.index, Docs: ix.NumDocs(), Postings: ix.Meta().Postings, DocIDCodec: dc.Name(), FreqCodec: fc.Name()},
		Queries: len(lines), K: o.k, TopK: o.topk, BigPostings: o.bigPostings,
		Command: "gpusearch " + strings.Join(os.Args[1:], " "), Date: time.Now().UTC().Format(time.RFC3339),
		Notes: []string{
			"latency: wall time of Search on one goroutine, each query's mean over the measured passes; mean/p50/p99 over queries",
			"big: queries whose terms' lists hold more than big_postings postings in all",
			"speedup: CPU engine's latency / GPU's (mean over mean, p50 over p50)",
			"phases: GPU device time of one profiled run per query (CUDA events between phases), mean per query",
			"batches: queries/s of SearchBatch over consecutive chunks of the file (one synchronization per wave)",
		},
	}
	cpuNames := splitList(o.cpu)
	cpus := make([]query.Engine, len(cpuNames))
	for i, name := range cpuNames {
		if cpus[i], err = query.New(ix, name); err != nil {
			return nil, usageError{err}
		}
	}
	a := analysis.New()
	modes, err := parseModes(o.modes)
	if err != nil {
		return nil, err
	}
	for _, m := range modes {
		qs := make([]query.Query, len(lines))
		big := make([]bool, len(lines))
		mr := gpuModeReport{Mode: string(m)}
		for i, l := range lines {
			qs[i] = query.Parse(a, l.Text, m, o.k)
			var n int64
			for _, t := range qs[i].Terms {
				if info, ok := ix.Lookup(t); ok {
					n += int64(info.DF)
				}
			}
			big[i] = n > o.bigPostings
			if big[i] {
				mr.BigQueries++
			}
			mr.MeanPostings += float64(n) / float64(len(lines))
		}
		fmt.Fprintf(logw, "bench gpu queries: %s, %d queries (%d big)\n", m, len(qs), mr.BigQueries)
		names := append([]string{"gpu"}, cpuNames...)
		engines := append([]query.Engine{g}, cpus...)
		lats := make([][]time.Duration, len(engines))
		answers := make([][]query.Result, len(engines))
		for i, e := range engines {
			fmt.Fprintf(logw, "  %s\n", names[i])
			if lats[i], answers[i], err = queryLatencies(ctx, e, qs, o.minTime); err != nil {
				return nil, fmt.Errorf("bench gpu queries: %s %s: %w", names[i], m, err)
			}
		}
		for i, name := range names {
			for _, sub := range []string{"all", "big"} {
				mr.Latency = append(mr.Latency, latencyRow(name, sub, lats[i], answers[i], big))
			}
		}
		for i, name := range cpuNames {
			for _, sub := range []string{"all", "big"} {
				gr, cr := latencyRow("gpu", sub, lats[0], answers[0], big), latencyRow(name, sub, lats[i+1], answers[i+1], big)
				if gr.Queries > 0 && gr.MeanUS > 0 && gr.P50US > 0 {
					mr.Speedups = append(mr.Speedups, gpuSpeedupRow{Versus: name, Subset: sub, Mean: cr.MeanUS / gr.MeanUS, P50: cr.P50US / gr.P50US})
				}
			}
			if name == "exhaustive" {
				for q := range qs {
					mr.Checked++
					if !slices.Equal(answers[0][q].Hits, answers[i+1][q].Hits) {
						mr.Mismatches++
					}
				}
			}
		}
		if mr.Phases, err = gpuPhases(ctx, g, qs, big); err != nil {
			return nil, err
		}
		if mr.Batches, mr.BatchDiffers, err = batchThroughput(ctx, g, qs, answers[0], batches, max(o.callers, 1), o.minTime); err != nil {
			return nil, err
		}
		rep.Modes = append(rep.Modes, mr)
	}
	rep.Elapsed = time.Since(began).Seconds()
	return rep, nil
}

// queryLatencies runs qs through e once, keeping the answers, then in
// passes until minTime has passed (at least one), and returns each query's
// mean latency over the measured passes.
func queryLatencies(ctx context.Context, e query.Engine, qs []query.Query, minTime time.Duration) ([]time.Duration, []query.Result, error) {
	answers := make([]query.Result, len(qs))
	for i, q := range qs {
		r, err := e.Search(ctx, q)
		if err != nil {
			return nil, nil, err
		}
		answers[i] = r
	}
	sum := make([]time.Duration, len(qs))
	var elapsed time.Duration
	passes := 0
	for ; passes == 0 || elapsed < minTime; passes++ {
		start := time.Now()
		for i, q := range qs {
			t0 := time.Now()
			if _, err := e.Search(ctx, q); err != nil {
				return nil, nil, err
			}
			sum[i] += time.Since(t0)
		}
		elapsed += time.Since(start)
	}
	for i := range sum {
		sum[i] /= time.Duration(passes)
	}
	return sum, answers, nil
}

// latencyRow summarizes one engine's latencies over a subset.
func latencyRow(name, subset string, lat []time.Duration, answers []query.Result, big []bool) gpuLatencyRow {
	row := gpuLatencyRow{Engine: name, Subset: subset}
	var sel []time.Duration
	var sum time.Duration
	algos := map[string]bool{}
	for i, d := range lat {
		if subset == "big" && !big[i] {
			continue
		}
		sel = append(sel, d)
		sum += d
		row.BlocksDecoded += float64(answers[i].Stats.BlocksDecoded)
		row.Postings += float64(answers[i].Stats.PostingsScored)
		if answers[i].Stats.Algorithm != "" {
			algos[answers[i].Stats.Algorithm] = true
		}
	}
	row.Queries = len(sel)
	row.Algorithm = joinKeys(algos)
	if len(sel) == 0 {
		return row
	}
	slices.Sort(sel)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	n := float64(len(sel))
	row.MeanUS = us(sum) / n
	row.P50US = us(percentile(sel, 0.50))
	row.P99US = us(percentile(sel, 0.99))
	row.BlocksDecoded /= n
	row.Postings /= n
	return row
}

// gpuPhases profiles each query once and averages the phases per subset.
func gpuPhases(ctx context.Context, g gpuQueryEngine, qs []query.Query, big []bool) ([]gpuPhaseRow, error) {
	var sums [2]gpu.Phases
	var counts [2]int
	for i, q := range qs {
		_, ph, err := g.Profile(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("bench gpu queries: profile: %w", err)
		}
		for s := range 2 {
			if s == 1 && !big[i] {
				continue
			}
			counts[s]++
			for p, d := range ph {
				sums[s][p] += d
			}
		}
	}
	var rows []gpuPhaseRow
	for s, sub := range []string{"all", "big"} {
		row := gpuPhaseRow{Subset: sub, US: map[string]float64{}}
		if counts[s] > 0 {
			for name, us := range sums[s].Map() {
				row.US[name] = us / float64(counts[s])
			}
			row.TotalUS = float64(sums[s].Total().Nanoseconds()) / 1e3 / float64(counts[s])
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// batchThroughput is SearchBatch's queries/s over chunks of each size,
// callers goroutines taking the chunks in turn, and the number of batch
// answers that differ from Search's.
func batchThroughput(ctx context.Context, g gpuQueryEngine, qs []query.Query, single []query.Result, sizes []int, callers int, minTime time.Duration) ([]gpuBatchRow, int, error) {
	var rows []gpuBatchRow
	var differs atomic.Int64
	for _, b := range sizes {
		var elapsed time.Duration
		n := 0
		for pass := 0; pass == 0 || elapsed < minTime; pass++ {
			var next atomic.Int64
			var wg sync.WaitGroup
			errs := make([]error, callers)
			start := time.Now()
			for c := range callers {
				wg.Go(func() {
					for {
						i := int(next.Add(int64(b))) - b
						if i >= len(qs) {
							return
						}
						rs, err := g.SearchBatch(ctx, qs[i:min(i+b, len(qs))])
						if err != nil {
							errs[c] = fmt.Errorf("bench gpu queries: batch of %d: %w", b, err)
							return
						}
						if pass == 0 {
							for j, r := range rs {
								if !slices.Equal(r.Hits, single[i+j].Hits) {
									differs.Add(1)
								}
							}
						}
					}
				})
			}
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				return nil, 0, err
			}
			elapsed += time.Since(start)
			n += len(qs)
		}
		rows = append(rows, gpuBatchRow{Batch: b, Callers: callers, QPS: float64(n) / elapsed.Seconds()})
	}
	return rows, int(differs.Load()), nil
}

// printGPUQueries writes the report as a table.
func printGPUQueries(w io.Writer, rep *gpuQueriesReport) {
	fmt.Fprintf(w, "GPU queries: %s, index %s (%d docs, %d postings, %s), k=%d\n", rep.Device.Name, rep.Index.Dir, rep.Index.Docs,
		rep.Index.Postings, rep.Index.DocIDCodec, rep.K)
	for _, m := range rep.Modes {
		fmt.Fprintf(w, "mode %s: %d queries, %d over %d postings, %.0f postings on average\n", m.Mode, rep.Queries, m.BigQueries, rep.BigPostings, m.MeanPostings)
		fmt.Fprintf(w, "  %-11s %-6s %10s %10s %10s %10s\n", "engine", "subset", "mean_us", "p50_us", "p99_us", "blocks")
		for _, r := range m.Latency {
			fmt.Fprintf(w, "  %-11s %-6s %10.1f %10.1f %10.1f %10.1f\n", r.Engine, r.Subset, r.MeanUS, r.P50US, r.P99US, r.BlocksDecoded)
		}
		for _, s := range m.Speedups {
			fmt.Fprintf(w, "  speedup vs %-10s %-4s mean %6.2fx  p50 %6.2fx\n", s.Versus, s.Subset, s.Mean, s.P50)
		}
		for _, p := range m.Phases {
			fmt.Fprintf(w, "  phases %-4s (us):", p.Subset)
			for i := range gpu.Phase(len(gpu.Phases{})) {
				fmt.Fprintf(w, " %s %.1f", i, p.US[i.String()])
			}
			fmt.Fprintf(w, " = %.1f\n", p.TotalUS)
		}
		fmt.Fprintf(w, "  batched q/s:")
		for _, b := range m.Batches {
			fmt.Fprintf(w, " %d: %.0f", b.Batch, b.QPS)
		}
		if len(m.Batches) > 0 && m.Batches[0].Callers > 1 {
			fmt.Fprintf(w, " (%d callers)", m.Batches[0].Callers)
		}
		fmt.Fprintf(w, "\n  answers: %d of %d differ from the exhaustive scorer's; %d batch answers differ from single ones\n", m.Mismatches, m.Checked, m.BatchDiffers)
	}
}
