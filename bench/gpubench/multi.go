package gpubench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/bench/latency"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// MultiSetup is one way of serving the collection on GPUs: one engine
// over the whole index, or a sharded collection's shards on several
// devices.
type MultiSetup struct {
	Name    string
	Shards  int
	Devices []int
	// Open makes the setup's engine; it is closed (io.Closer) after its
	// runs.
	Open func() (query.BatchEngine, error)
}

// MultiOptions are bench gpu multi's settings.
type MultiOptions struct {
	Texts    []string
	Modes    []query.Mode
	K        int
	Batches  []int         // batch sizes for throughput
	Callers  int           // goroutines calling SearchBatch at once
	Deadline time.Duration // a batch must finish within it to count
	MinTime  time.Duration // least measured time per batch size
	Setups   []MultiSetup
	Command  string
	Progress io.Writer
}

// MultiReport is bench gpu multi's JSON.
type MultiReport struct {
	Index    QueriesIndex  `json:"index"`
	Queries  int           `json:"queries"`
	K        int           `json:"k"`
	Deadline float64       `json:"deadline_ms"`
	Setups   []SetupReport `json:"setups"`
	// Ratios are each setup's over the first's, per mode: queries/s at
	// the deadline and mean latency (first's over the setup's: > 1 is
	// faster).
	Ratios []MultiRatio `json:"ratios"`
	Run
}

// SetupReport is one setup's results.
type SetupReport struct {
	Name    string      `json:"name"`
	Shards  int         `json:"shards"`
	Devices []int       `json:"devices"`
	OpenS   float64     `json:"open_s"`
	Modes   []MultiMode `json:"modes"`
}

// MultiMode is one setup in one mode: latency one query at a time, and
// throughput per batch size with each batch's latency.
type MultiMode struct {
	Mode       string       `json:"mode"`
	MeanUS     float64      `json:"mean_us"`
	P50US      float64      `json:"p50_us"`
	P99US      float64      `json:"p99_us"`
	Batches    []MultiBatch `json:"batches"`
	DeadlineQP float64      `json:"qps_at_deadline"` // the best batch size whose slowest batch met the deadline
	BestBatch  int          `json:"best_batch"`
	// Mismatches counts queries whose hits differ from the first setup's.
	Mismatches int `json:"mismatches"`
}

// MultiBatch is SearchBatch's throughput at one batch size and callers,
// with the batches' latency.
type MultiBatch struct {
	Batch   int     `json:"batch"`
	Callers int     `json:"callers"`
	QPS     float64 `json:"qps"`
	P50MS   float64 `json:"batch_p50_ms"`
	MaxMS   float64 `json:"batch_max_ms"`
	Met     bool    `json:"met_deadline"`
}

// MultiRatio compares a setup with the first in one mode.
type MultiRatio struct {
	Setup   string  `json:"setup"`
	Mode    string  `json:"mode"`
	QPS     float64 `json:"qps_at_deadline"`
	Latency float64 `json:"mean_latency"`
}

// Multi measures each setup on the queries in each mode, one setup at a
// time (each opened, measured and closed before the next).
func Multi(ctx context.Context, ix *index.Index, o MultiOptions) (*MultiReport, error) {
	began := time.Now()
	logw := progressTo(o.Progress)
	rep := &MultiReport{
		Index:   describeIndex(ix),
		Queries: len(o.Texts), K: o.K, Deadline: float64(o.Deadline.Microseconds()) / 1e3,
		Run: newRun(o.Command,
			"latency: Search one query at a time on one goroutine, each query once after a warm-up pass",
			"batches: SearchBatch over consecutive chunks of the queries, callers goroutines at once; qps_at_deadline is the best batch size whose slowest batch finished within the deadline",
			"mismatches: queries whose hits (docids and scores) differ from the first setup's",
		),
	}
	a := analysis.New()
	qs := make(map[query.Mode][]query.Query)
	for _, m := range o.Modes {
		var err error
		if qs[m], err = query.ParseAll(a, o.Texts, m, o.K); err != nil {
			return nil, err
		}
	}
	first := map[query.Mode][]query.Result{}
	for si, s := range o.Setups {
		fmt.Fprintf(logw, "bench gpu multi: %s\n", s.Name)
		t0 := time.Now()
		e, err := s.Open()
		if err != nil {
			return nil, fmt.Errorf("bench gpu multi: %s: %w", s.Name, err)
		}
		sr := SetupReport{Name: s.Name, Shards: s.Shards, Devices: s.Devices, OpenS: time.Since(t0).Seconds()}
		for _, m := range o.Modes {
			mm, answers, err := multiMode(ctx, e, qs[m], o)
			if err != nil {
				closeEngine(e)
				return nil, fmt.Errorf("bench gpu multi: %s %s: %w", s.Name, m, err)
			}
			mm.Mode = string(m)
			if si == 0 {
				first[m] = answers
			} else {
				for i := range answers {
					if !slices.Equal(answers[i].Hits, first[m][i].Hits) {
						mm.Mismatches++
					}
				}
			}
			fmt.Fprintf(logw, "  %s: mean %.1f us, %.0f q/s at the deadline (batch %d)\n", m, mm.MeanUS, mm.DeadlineQP, mm.BestBatch)
			sr.Modes = append(sr.Modes, mm)
		}
		if err := closeEngine(e); err != nil {
			return nil, err
		}
		rep.Setups = append(rep.Setups, sr)
	}
	for _, s := range rep.Setups[min(1, len(rep.Setups)):] {
		for i, mm := range s.Modes {
			base := rep.Setups[0].Modes[i]
			r := MultiRatio{Setup: s.Name, Mode: mm.Mode}
			if base.DeadlineQP > 0 {
				r.QPS = mm.DeadlineQP / base.DeadlineQP
			}
			if mm.MeanUS > 0 {
				r.Latency = base.MeanUS / mm.MeanUS
			}
			rep.Ratios = append(rep.Ratios, r)
		}
	}
	rep.Elapsed = time.Since(began).Seconds()
	return rep, nil
}

func closeEngine(e query.Engine) error {
	if c, ok := e.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// multiMode measures one engine on qs: latency one query at a time (a
// warm-up pass, then each query once), then throughput per batch size.
func multiMode(ctx context.Context, e query.BatchEngine, qs []query.Query, o MultiOptions) (MultiMode, []query.Result, error) {
	var mm MultiMode
	answers := make([]query.Result, len(qs))
	for i, q := range qs {
		r, err := e.Search(ctx, q)
		if err != nil {
			return mm, nil, err
		}
		answers[i] = r
	}
	lat := make([]time.Duration, len(qs))
	for i, q := range qs {
		t0 := time.Now()
		if _, err := e.Search(ctx, q); err != nil {
			return mm, nil, err
		}
		lat[i] = time.Since(t0)
	}
	s := latency.Summarize(lat)
	mm.MeanUS, mm.P50US, mm.P99US = s.MeanUS, s.P50US, s.P99US
	for _, b := range o.Batches {
		row, err := multiBatch(ctx, e, qs, b, max(o.Callers, 1), o.MinTime)
		if err != nil {
			return mm, nil, err
		}
		row.Met = row.MaxMS <= float64(o.Deadline.Microseconds())/1e3
		if row.Met && row.QPS > mm.DeadlineQP {
			mm.DeadlineQP, mm.BestBatch = row.QPS, b
		}
		mm.Batches = append(mm.Batches, row)
	}
	return mm, answers, nil
}

// multiBatch runs qs in chunks of b through SearchBatch from callers
// goroutines, passes until minTime has passed (at least one), timing each
// batch.
func multiBatch(ctx context.Context, e query.BatchEngine, qs []query.Query, b, callers int, minTime time.Duration) (MultiBatch, error) {
	var mu sync.Mutex
	var times []time.Duration
	qps, err := passes(qs, b, callers, minTime, func(_, _ int, chunk []query.Query) error {
		t0 := time.Now()
		if _, err := e.SearchBatch(ctx, chunk); err != nil {
			return fmt.Errorf("batch of %d: %w", b, err)
		}
		d := time.Since(t0)
		mu.Lock()
		times = append(times, d)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return MultiBatch{}, err
	}
	s := latency.Summarize(times)
	return MultiBatch{Batch: b, Callers: callers, QPS: qps, P50MS: s.P50US / 1e3, MaxMS: s.MaxUS / 1e3}, nil
}

// Print writes the report as a table.
func (rep *MultiReport) Print(w io.Writer) {
	fmt.Fprintf(w, "GPUs: index %s (%d docs, %s), %d queries, k=%d, deadline %.0f ms\n", rep.Index.Dir, rep.Index.Docs,
		rep.Index.DocIDCodec, rep.Queries, rep.K, rep.Deadline)
	for _, s := range rep.Setups {
		fmt.Fprintf(w, "%s (%d shards on devices %v, opened in %.1f s)\n", s.Name, s.Shards, s.Devices, s.OpenS)
		for _, m := range s.Modes {
			fmt.Fprintf(w, "  %-3s latency mean %.1f us, p50 %.1f, p99 %.1f; %.0f q/s at the deadline (batch %d); %d answers differ\n",
				m.Mode, m.MeanUS, m.P50US, m.P99US, m.DeadlineQP, m.BestBatch, m.Mismatches)
			for _, b := range m.Batches {
				fmt.Fprintf(w, "      batch %5d x%d: %9.0f q/s, batch p50 %.2f ms, max %.2f ms\n", b.Batch, b.Callers, b.QPS, b.P50MS, b.MaxMS)
			}
		}
	}
	for _, r := range rep.Ratios {
		fmt.Fprintf(w, "%s %s: %.2fx the queries/s at the deadline, %.2fx faster one at a time\n", r.Setup, r.Mode, r.QPS, r.Latency)
	}
}
