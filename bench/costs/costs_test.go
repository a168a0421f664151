package costs

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/eval"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
	// Every codec family registers itself; indexes name their codecs.
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
)

// TestBound: half the queries cost 1 ms on a core and the other half
// 9 ms, each 1 ms of the GPU's, scaled to a GPU alone of 1,000 q/s; with
// 2 CPU workers the best split gives the CPU the light half and a bit,
// and CPURate adds the overhead that matches it.
func TestBound(t *testing.T) {
	var samples []schedule.Sample
	for i := range 10 {
		s := schedule.Sample{CPU: time.Millisecond, GPU: time.Millisecond}
		if i%2 == 1 {
			s.CPU = 9 * time.Millisecond
		}
		samples = append(samples, s)
	}
	rep, err := Bound(samples, BoundOptions{CPUWorkers: 2, AloneWorkers: 2, GPURate: 1000, CPURate: 250, Overheads: []time.Duration{0, time.Millisecond}})
	if err != nil || len(rep.Bounds) != 3 {
		t.Fatalf("Bound = %+v, %v; want 3 bounds", rep, err)
	}
	// No overhead: the CPU (2 workers) takes the 5 light queries (2.5 ms
	// a round) and x of a heavy one (4.5 ms each), the GPU 5-x ms: x =
	// 5/11, a round of 10 in 5-x ms. With 1 ms of overhead, the light ones
	// fill the CPU's 5 ms exactly.
	for i, want := range []struct{ overhead, rate, toCPU float64 }{
		{0, 10 / (5 - 5.0/11) * 1e3, (5 + 5.0/11) / 10},
		{1000, 10 / 5e-3, 0.5},
	} {
		b := rep.Bounds[i]
		if b.OverheadUS != want.overhead || math.Abs(b.Rate-want.rate) > 1e-6*want.rate || math.Abs(b.ToCPU-want.toCPU) > 1e-9 ||
			b.GPUAlone != 1000 || math.Abs(b.OverBetter-b.Rate/1000) > 1e-9 {
			t.Errorf("bound %d: %+v, want overhead %vus, rate %v, to CPU %v", i, b, want.overhead, want.rate, want.toCPU)
		}
	}
	// 250 q/s on 2 workers is 8 ms a query against 5 ms fitted: 3 ms.
	if c := rep.Bounds[2]; !c.Calibrated || c.OverheadUS != 3000 || math.Abs(c.CPUAlone-250) > 1e-6 {
		t.Errorf("calibrated bound %+v, want 3,000us and the CPU alone at 250 q/s", c)
	}
}

// TestSimulate replays two kinds of queries, light ones the CPU answers
// about as fast as the GPU and heavy ones the GPU answers 50 times
// faster: hybrid must sustain more than either processor alone.
func TestSimulate(t *testing.T) {
	var samples []schedule.Sample
	for i := range 200 {
		f := schedule.Features{Terms: 2, Shortest: 100, Second: 1000, Longest: 1000, Total: 1100, Mode: query.Or}
		s := schedule.Sample{Features: f, CPU: 100 * time.Microsecond, GPU: 60 * time.Microsecond}
		if i%2 == 1 {
			s.Features.Longest, s.Features.Total = 1e6, 1e6+100
			s.CPU, s.GPU = 5*time.Millisecond, 100*time.Microsecond
		}
		samples = append(samples, s)
	}
	model, err := schedule.Fit(samples, 4)
	if err != nil {
		t.Fatal(err)
	}
	o := SimulateOptions{Policies: []schedule.Policy{schedule.PolicyCPU, schedule.PolicyGPU, schedule.PolicyHybrid}, CPUWorkers: 4, GPUBatch: 64,
		GPUCall: 200 * time.Microsecond, Deadline: 500 * time.Millisecond, Horizon: 500 * time.Millisecond, Seed: 1}
	best := Simulate(samples, model, o).Best
	cpu, gpu, hybrid := best["cpu"], best["gpu"], best["hybrid"]
	if cpu.Rate <= 0 || gpu.Rate <= 0 || hybrid.Rate <= max(cpu.Rate, gpu.Rate) || hybrid.Missed != 0 {
		t.Errorf("max rates cpu %v, gpu %v, hybrid %v (missed %d): want hybrid above both", cpu.Rate, gpu.Rate, hybrid.Rate, hybrid.Missed)
	}
	// An overhead of 1 ms on each CPU job (mean 2.55 ms measured) makes
	// the CPU alone about 1.4x slower.
	o.Policies, o.CPUOverhead = []schedule.Policy{schedule.PolicyCPU}, time.Millisecond
	if slow := Simulate(samples, model, o).Best["cpu"].Rate; slow >= cpu.Rate/1.2 || slow <= cpu.Rate/1.8 {
		t.Errorf("cpu alone %v with 1 ms of overhead a job, %v without: want about 1.4x slower", slow, cpu.Rate)
	}
}

// TestFit fits the cost model on the sample crawl, without a GPU: with
// every automatic candidate it fits a model for each (the per-query
// choice) and names the fastest over all queries as the fallback, and
// reports what the choice costs; a single engine is kept alone.
func TestFit(t *testing.T) {
	ix, qs := sampleQueries(t)
	ctx := context.Background()
	var cpus []Candidate
	for _, name := range AutoCandidates {
		e, err := query.New(ix, name)
		if err != nil {
			t.Fatal(err)
		}
		cpus = append(cpus, Candidate{name, e})
	}
	o := FitOptions{Repeat: 1, HoldOut: 4, GPUBatch: 128}
	rep, err := Fit(ctx, ix, qs, cpus, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Queries != 200 || len(rep.CPUTotals) != len(AutoCandidates)+2 || len(rep.Samples) != 200 || rep.Samples[0].CPU <= 0 {
		t.Fatalf("Fit = %+v, want 200 queries and samples and a total per candidate %v, the choice and the oracle", rep, AutoCandidates)
	}
	if o := rep.CPUTotals["oracle"]; o <= 0 || o > rep.CPUTotals["choice"] || o > rep.CPUTotals[rep.CPUEngine] {
		t.Errorf("totals %v: the oracle must be positive and no slower than the choice or any engine", rep.CPUTotals)
	}
	for _, name := range AutoCandidates {
		if rep.CPUTotals[name] <= 0 || rep.CPUTotals[name] < rep.CPUTotals[rep.CPUEngine] {
			t.Errorf("candidate %s: total %v s, chosen %s with %v s: want the fastest chosen", name, rep.CPUTotals[name], rep.CPUEngine, rep.CPUTotals[rep.CPUEngine])
		}
	}
	// The choice is kept only where it beats the fallback on held-out
	// queries, which on this small crawl's microsecond timings it may not.
	if m := rep.Model; m.CPUEngine != rep.CPUEngine || m.CPUEngines() != strings.Join(AutoCandidates, "|") && m.CPUEngines() != rep.CPUEngine {
		t.Fatalf("model %+v: want cpu_engine %s, choosing among all candidates or none", m, rep.CPUEngine)
	}
	rep, err = Fit(ctx, ix, qs, cpus[3:], nil, o)
	if err != nil || rep.Model.CPUEngine != "bmw" || rep.Model.CPUAlgorithms != nil {
		t.Errorf("bmw alone: model engine %q, choosing among %d, %v; want bmw alone", rep.Model.CPUEngine, len(rep.Model.CPUAlgorithms), err)
	}
	rep, err = Fit(ctx, ix, qs, cpus[2:], nil, o)
	if m := rep.Model; err != nil || m.CPUEngines() != "wand|bmw" && m.CPUEngines() != m.CPUEngine || m.CPUEngine != "wand" && m.CPUEngine != "bmw" {
		t.Errorf("wand and bmw: engine %q, choosing among %q, %v; want wand|bmw or one of them", m.CPUEngine, m.CPUEngines(), err)
	}
}

// sampleQueries indexes the sample crawl and parses its sample queries as
// OR queries of 10 results.
func sampleQueries(t *testing.T) (*index.Index, []query.Query) {
	t.Helper()
	ix := testindex.Crawl(t, indexer.Options{Workers: 2})
	f, err := os.Open("../../examples/queries.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, err := eval.ReadQueries(f)
	if err != nil {
		t.Fatal(err)
	}
	a := analysis.New()
	qs := make([]query.Query, len(lines))
	for i, l := range lines {
		var err error
		if qs[i], err = query.Parse(a, l.Text, query.Or, 10); err != nil {
			t.Fatal(err)
		}
	}
	return ix, qs
}

func TestReadSamples(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, text string
		n          int
	}{{"two.json", `[{"cpu":1},{"cpu":2}]`, 2}, {"empty.json", "[]", 0}, {"bad.json", "{", 0}} {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadSamples(path)
		if len(got) != tt.n || (err == nil) != (tt.n > 0) {
			t.Errorf("ReadSamples(%s) = %d samples, %v; want %d", tt.text, len(got), err, tt.n)
		}
	}
	raw, _ := json.Marshal([]schedule.Sample{{CPU: time.Millisecond}})
	path := filepath.Join(dir, "ms.json")
	os.WriteFile(path, raw, 0o644)
	if got, err := ReadSamples(path); err != nil || got[0].CPU != time.Millisecond {
		t.Errorf("ReadSamples of a written sample = %v, %v", got, err)
	}
}
