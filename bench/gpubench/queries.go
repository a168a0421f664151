package gpubench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/bench/latency"
	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// QueriesOptions are bench gpu queries' settings.
type QueriesOptions struct {
	Texts       []string // the queries file's query texts
	Modes       []query.Mode
	K           int
	TopK        string         // the GPU's top-k method, for the report
	NoGraphs    bool           // the GPU engine launched without CUDA graphs
	CPUNames    []string       // the CPU engines to compare with, by name
	CPU         []query.Engine // and opened
	Batches     []int          // batch sizes for throughput
	Callers     int            // goroutines calling SearchBatch at once
	BigPostings int64          // a query is big when its lists hold more postings
	MinTime     time.Duration  // least measured time per engine and mode
	Command     string         // the command line, for the report
	Progress    io.Writer
}

// QueryEngine is what the benchmark needs of the GPU engine.
type QueryEngine interface {
	query.BatchEngine
	Profile(ctx context.Context, q query.Query) (query.Result, gpu.Phases, error)
}

// QueriesReport is bench gpu queries' JSON.
type QueriesReport struct {
	Device      gpu.DeviceInfo `json:"device"`
	Index       QueriesIndex   `json:"index"`
	Queries     int            `json:"queries"`
	K           int            `json:"k"`
	TopK        string         `json:"topk"`
	Graphs      bool           `json:"graphs"` // runs queued as CUDA graphs
	BigPostings int64          `json:"big_postings"`
	Modes       []ModeReport   `json:"modes"`
	Run
}

// QueriesIndex describes the index the queries ran on.
type QueriesIndex struct {
	Dir        string `json:"dir"`
	Docs       int    `json:"docs"`
	Postings   uint64 `json:"postings"`
	DocIDCodec string `json:"docid_codec"`
	FreqCodec  string `json:"freq_codec"`
	Reencoded  bool   `json:"reencoded"`
}

// ModeReport is one mode's results.
type ModeReport struct {
	Mode         string       `json:"mode"`
	BigQueries   int          `json:"big_queries"`
	MeanPostings float64      `json:"mean_postings"`
	Latency      []LatencyRow `json:"latency"`
	Speedups     []SpeedupRow `json:"speedups"`
	Phases       []PhaseRow   `json:"phases"`
	Batches      []BatchRow   `json:"batches"`
	Checked      int          `json:"checked"`    // GPU answers compared with the exhaustive scorer's
	Mismatches   int          `json:"mismatches"` // of which differed
	BatchDiffers int          `json:"batch_differs"`
}

// LatencyRow is one engine on one subset of the queries.
type LatencyRow struct {
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

// SpeedupRow is a CPU engine's latency over the GPU's on a subset.
type SpeedupRow struct {
	Versus string  `json:"versus"`
	Subset string  `json:"subset"`
	Mean   float64 `json:"mean"` // CPU mean / GPU mean
	P50    float64 `json:"p50"`
}

// PhaseRow is the GPU's mean device time per phase on a subset.
type PhaseRow struct {
	Subset  string             `json:"subset"`
	US      map[string]float64 `json:"us"`
	TotalUS float64            `json:"total_us"`
}

// BatchRow is SearchBatch's throughput at one batch size.
type BatchRow struct {
	Batch   int     `json:"batch"`
	Callers int     `json:"callers"`
	QPS     float64 `json:"qps"`
}

// Queries measures g and o.CPU on the queries in each mode: latency over
// all queries and the big ones, the GPU's phases, batched throughput, and
// how the GPU's answers compare with the exhaustive scorer's.
func Queries(ctx context.Context, ix *index.Index, g QueryEngine, o QueriesOptions) (*QueriesReport, error) {
	began := time.Now()
	logw := progressTo(o.Progress)
	rep := &QueriesReport{
		Index:   describeIndex(ix),
		Queries: len(o.Texts), K: o.K, TopK: o.TopK, Graphs: !o.NoGraphs, BigPostings: o.BigPostings,
		Run: newRun(o.Command,
			"latency: wall time of Search on one goroutine, each query's mean over the measured passes; mean/p50/p99 over queries",
			"big: queries whose terms' lists hold more than big_postings postings in all",
			"speedup: CPU engine's latency / GPU's (mean over mean, p50 over p50)",
			"phases: GPU device time of one profiled run per query (CUDA events between phases), mean per query",
			"batches: queries/s of SearchBatch over consecutive chunks of the file (one synchronization per wave)",
		),
	}
	a := analysis.New()
	for _, m := range o.Modes {
		qs, err := query.ParseAll(a, o.Texts, m, o.K)
		if err != nil {
			return nil, err
		}
		big := make([]bool, len(o.Texts))
		mr := ModeReport{Mode: string(m)}
		for i := range qs {
			var n int64
			for _, t := range qs[i].Terms {
				if info, ok := ix.Lookup(t); ok {
					n += int64(info.DF)
				}
			}
			big[i] = n > o.BigPostings
			if big[i] {
				mr.BigQueries++
			}
			mr.MeanPostings += float64(n) / float64(len(o.Texts))
		}
		fmt.Fprintf(logw, "bench gpu queries: %s, %d queries (%d big)\n", m, len(qs), mr.BigQueries)
		names := append([]string{"gpu"}, o.CPUNames...)
		engines := append([]query.Engine{g}, o.CPU...)
		lats := make([][]time.Duration, len(engines))
		answers := make([][]query.Result, len(engines))
		for i, e := range engines {
			fmt.Fprintf(logw, "  %s\n", names[i])
			var err error
			if lats[i], answers[i], err = queryLatencies(ctx, e, qs, o.MinTime); err != nil {
				return nil, fmt.Errorf("bench gpu queries: %s %s: %w", names[i], m, err)
			}
		}
		for i, name := range names {
			for _, sub := range []string{"all", "big"} {
				mr.Latency = append(mr.Latency, latencyRow(name, sub, lats[i], answers[i], big))
			}
		}
		for i, name := range o.CPUNames {
			for _, sub := range []string{"all", "big"} {
				gr, cr := latencyRow("gpu", sub, lats[0], answers[0], big), latencyRow(name, sub, lats[i+1], answers[i+1], big)
				if gr.Queries > 0 && gr.MeanUS > 0 && gr.P50US > 0 {
					mr.Speedups = append(mr.Speedups, SpeedupRow{Versus: name, Subset: sub, Mean: cr.MeanUS / gr.MeanUS, P50: cr.P50US / gr.P50US})
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
		if mr.Batches, mr.BatchDiffers, err = batchThroughput(ctx, g, qs, answers[0], o.Batches, max(o.Callers, 1), o.MinTime); err != nil {
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
func latencyRow(name, subset string, lat []time.Duration, answers []query.Result, big []bool) LatencyRow {
	row := LatencyRow{Engine: name, Subset: subset}
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
	row.Algorithm = strings.Join(slices.Sorted(maps.Keys(algos)), "|")
	if len(sel) == 0 {
		return row
	}
	s := latency.Summarize(sel)
	n := float64(len(sel))
	row.MeanUS, row.P50US, row.P99US = s.MeanUS, s.P50US, s.P99US
	row.BlocksDecoded /= n
	row.Postings /= n
	return row
}

// gpuPhases profiles each query once and averages the phases per subset.
func gpuPhases(ctx context.Context, g QueryEngine, qs []query.Query, big []bool) ([]PhaseRow, error) {
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
	var rows []PhaseRow
	for s, sub := range []string{"all", "big"} {
		row := PhaseRow{Subset: sub, US: map[string]float64{}}
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
func batchThroughput(ctx context.Context, g QueryEngine, qs []query.Query, single []query.Result, sizes []int, callers int, minTime time.Duration) ([]BatchRow, int, error) {
	var rows []BatchRow
	var differs atomic.Int64
	for _, b := range sizes {
		qps, err := passes(qs, b, callers, minTime, func(pass, i int, chunk []query.Query) error {
			rs, err := g.SearchBatch(ctx, chunk)
			if err != nil {
				return fmt.Errorf("bench gpu queries: batch of %d: %w", b, err)
			}
			if pass == 0 {
				for j, r := range rs {
					if !slices.Equal(r.Hits, single[i+j].Hits) {
						differs.Add(1)
					}
				}
			}
			return nil
		})
		if err != nil {
			return nil, 0, err
		}
		rows = append(rows, BatchRow{Batch: b, Callers: callers, QPS: qps})
	}
	return rows, int(differs.Load()), nil
}

// passes runs qs through batch in chunks of b, callers goroutines taking
// the chunks in turn, pass after pass until minTime has passed (at least
// one), and returns the queries per second. batch gets the pass, the
// chunk's first index in qs and the chunk; its error stops the caller
// that got it and fails the pass.
func passes(qs []query.Query, b, callers int, minTime time.Duration, batch func(pass, i int, chunk []query.Query) error) (float64, error) {
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
					if errs[c] = batch(pass, i, qs[i:min(i+b, len(qs))]); errs[c] != nil {
						return
					}
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return 0, err
		}
		elapsed += time.Since(start)
		n += len(qs)
	}
	return float64(n) / elapsed.Seconds(), nil
}

// Print writes the report as a table.
func (rep *QueriesReport) Print(w io.Writer) {
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
