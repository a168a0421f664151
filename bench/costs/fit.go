package costs

import (
	"context"
	"time"

	"github.com/gpusearch/gpusearch/bench/latency"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// AutoCandidates are the CPU engines bench fit --cpu-engine auto times
// and fits a cost model for, so that engine=auto picks one per query:
// term-at-a-time over dense accumulators (exhaustive) wins on queries of
// few postings, WAND in between, MaxScore OR (cpu) on real collections
// and Block-Max WAND on synthetic ones on the longest (docs/queries.md,
// docs/scheduling.md).
var AutoCandidates = []string{"exhaustive", "cpu", "wand", "bmw"}

// Candidate is a CPU engine to time, by its name.
type Candidate struct {
	Name   string
	Engine query.Engine
}

// FitOptions are bench fit's settings.
type FitOptions struct {
	Repeat   int // runs per query; the median is used
	HoldOut  int // every n-th query is held out to measure the model's error
	GPUBatch int // the GPU is timed per query in batches of this many copies
}

// FitReport is what bench fit prints (keys in the order of the map it
// once was).
type FitReport struct {
	CPUEngine  string             `json:"cpu_engine"`
	CPUEngines string             `json:"cpu_engines"`
	CPUError   float64            `json:"cpu_mean_relative_error"`
	CPUTotals  map[string]float64 `json:"cpu_total_seconds"`
	GPUBatch   int                `json:"gpu_batch"`
	GPUError   float64            `json:"gpu_mean_relative_error"`
	HoldOut    int                `json:"held_out_every"`
	Index      string             `json:"index"`
	Model      *schedule.Model    `json:"model"`
	Queries    int                `json:"queries"`
	// Samples are the queries' features and times on the chosen engine
	// (bench fit --samples).
	Samples []schedule.Sample `json:"-"`
}

// Fit times every query of qs on each candidate and, when g is not nil,
// on the GPU, and fits the scheduler's cost model: one per candidate, the
// choice among them where there are several.
func Fit(ctx context.Context, ix *index.Index, qs []query.Query, cpus []Candidate, g query.Engine, o FitOptions) (*FitReport, error) {
	// samples[c] holds every query timed with candidate c; qs should hold
	// every query in every mode, interleaved, so that the model learns
	// each mode and the held-out set covers them all.
	names := make([]string, len(cpus))
	for c, cand := range cpus {
		names[c] = cand.Name
	}
	samples := make([][]schedule.Sample, len(cpus))
	totals := make([]time.Duration, len(cpus))
	for _, q := range qs {
		s := schedule.Sample{Features: schedule.FeaturesOf(ix, q)}
		var err error
		if g != nil {
			if s.GPU, err = gpuTime(ctx, g, q, o.Repeat, o.GPUBatch); err != nil {
				return nil, err
			}
		}
		for c, cand := range cpus {
			if s.CPU, err = medianTime(ctx, cand.Engine, q, o.Repeat); err != nil {
				return nil, err
			}
			totals[c] += s.CPU
			samples[c] = append(samples[c], s)
		}
	}
	cpuTotals := map[string]float64{}
	for c, name := range names {
		cpuTotals[name] = totals[c].Seconds()
	}
	model, err := schedule.FitChoice(names, samples, o.HoldOut)
	if err != nil {
		return nil, err
	}
	chosen := schedule.Chosen(model, names, samples)
	if len(names) > 1 {
		// What the choice costs against each engine alone and against
		// always picking the fastest (the oracle).
		var choice, oracle time.Duration
		for i, s := range chosen {
			choice += s.CPU
			fastest := s.CPU
			for c := range names {
				fastest = min(fastest, samples[c][i].CPU)
			}
			oracle += fastest
		}
		cpuTotals["choice"], cpuTotals["oracle"] = choice.Seconds(), oracle.Seconds()
	}
	return &FitReport{
		CPUEngine: model.CPUEngine, CPUEngines: model.CPUEngines(), CPUError: model.CPUError, CPUTotals: cpuTotals,
		GPUBatch: o.GPUBatch, GPUError: model.GPUError, HoldOut: o.HoldOut, Index: ix.Dir(), Model: model,
		Queries: len(chosen), Samples: chosen,
	}, nil
}

// gpuTime is a query's GPU cost as the scheduler meets it: with batch > 1
// and a batch engine, the median time of a batch of batch copies of q,
// divided by batch (the launches are shared, the work is not); otherwise
// medianTime.
func gpuTime(ctx context.Context, e query.Engine, q query.Query, repeat, batch int) (time.Duration, error) {
	be, ok := e.(query.BatchEngine)
	if !ok || batch <= 1 {
		return medianTime(ctx, e, q, repeat)
	}
	qs := make([]query.Query, batch)
	for i := range qs {
		qs[i] = q
	}
	t, err := medianRun(repeat, func() error {
		_, err := be.SearchBatch(ctx, qs)
		return err
	})
	return t / time.Duration(batch), err
}

// medianTime runs q repeat times on e and returns the median wall time.
func medianTime(ctx context.Context, e query.Engine, q query.Query, repeat int) (time.Duration, error) {
	return medianRun(repeat, func() error {
		_, err := e.Search(ctx, q)
		return err
	})
}

// medianRun runs f repeat times (at least once) and returns the median
// wall time of a run.
func medianRun(repeat int, f func() error) (time.Duration, error) {
	ts := make([]time.Duration, max(repeat, 1))
	for i := range ts {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		ts[i] = time.Since(start)
	}
	return latency.Median(ts), nil
}
