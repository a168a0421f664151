package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/bench/costs"
	"github.com/gpusearch/gpusearch/bench/load"
	"github.com/gpusearch/gpusearch/bench/queries"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// TestCLIBenchIntersect: the command prints the harness's rows as JSON
// and refuses bad flags with a usage error.
func TestCLIBenchIntersect(t *testing.T) {
	res := mustRun(t, "bench", "intersect", "--max-len", "1000", "--min-time", "1ms", "--json")
	var out struct {
		Results []struct {
			Lengths []int `json:"lengths"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || len(out.Results) == 0 {
		t.Fatalf("bench intersect --json printed %q: %v", res.stdout, err)
	}
	for _, args := range [][]string{{"--max-len", "10"}, {"--engine", "tpu"}} {
		if r := runCLI(t, append([]string{"bench", "intersect"}, args...)...); r.code != 2 {
			t.Errorf("bench intersect %v: exit %d, want 2", args, r.code)
		}
	}
}

// TestCLIBenchFit: bench fit, without a GPU, writes the model beside the
// index and the samples it fitted, and prints the report.
func TestCLIBenchFit(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	mustRun(t, "index", "--quiet", "--out", idx, sampleCrawl)
	samplesFile := filepath.Join(t.TempDir(), "samples.json")
	res := mustRun(t, "bench", "fit", "--index", idx, "--queries", "../../examples/queries.txt",
		"--mode", "or", "--repeat", "1", "--cpu-engine", "wand,bmw", "--samples", samplesFile)
	var out struct {
		CPUEngine string             `json:"cpu_engine"`
		Totals    map[string]float64 `json:"cpu_total_seconds"`
		Queries   int                `json:"queries"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || out.Queries != 200 || len(out.Totals) != 4 {
		t.Fatalf("bench fit printed %q: %v; want 200 queries, a total for wand, bmw, the choice and the oracle", res.stdout, err)
	}
	if model, fitted, err := schedule.LoadModel(idx); err != nil || !fitted || model.CPUEngine != out.CPUEngine {
		t.Errorf("LoadModel = %+v, %v, %v; want the fitted model with cpu_engine %s", model, fitted, err, out.CPUEngine)
	}
	if samples := samplesOf(t, samplesFile); len(samples) != 200 || samples[0].CPU <= 0 {
		t.Errorf("samples file: %d samples, want 200 with CPU times", len(samples))
	}
}

// TestCLIBenchSimulateBound: bench simulate and bench bound print their
// reports from a samples file, and refuse an empty one and bad flags.
func TestCLIBenchSimulateBound(t *testing.T) {
	dir := t.TempDir()
	var samples []schedule.Sample
	for i := range 20 {
		f := schedule.Features{Terms: 2, Shortest: 100, Second: 1000, Longest: 1000, Total: 1100, Mode: query.Or}
		s := schedule.Sample{Features: f, CPU: 100 * time.Microsecond, GPU: 60 * time.Microsecond}
		if i%2 == 1 {
			s.Features.Longest, s.Features.Total = 1e6, 1e6+100
			s.CPU, s.GPU = 5*time.Millisecond, 100*time.Microsecond
		}
		samples = append(samples, s)
	}
	model, err := schedule.Fit(samples, 4)
	if err == nil {
		err = model.Save(dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	file := writeSamples(t, dir, samples)
	modelFile := filepath.Join(dir, schedule.ModelFile)
	var sim costs.SimulateReport
	res := mustRun(t, "bench", "simulate", "--samples", file, "--model", modelFile, "--cpu-workers", "4", "--duration", "100ms", "--policy", "cpu")
	if err := json.Unmarshal([]byte(res.stdout), &sim); err != nil || sim.Samples != 20 || sim.Best["cpu"].Rate <= 0 {
		t.Errorf("bench simulate printed %q: %v", res.stdout, err)
	}
	var bound costs.BoundReport
	res = mustRun(t, "bench", "bound", "--samples", file, "--gpu-rate", "1000", "--overhead", "0s,1ms", "--cpu-rate", "250")
	if err := json.Unmarshal([]byte(res.stdout), &bound); err != nil || len(bound.Bounds) != 3 || !bound.Bounds[2].Calibrated {
		t.Errorf("bench bound printed %q: %v", res.stdout, err)
	}
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte("[]"), 0o644)
	for _, args := range [][]string{
		{"simulate", "--samples", empty, "--model", modelFile},
		{"bound", "--samples", empty, "--gpu-rate", "1000"},
		{"bound", "--samples", file},
		{"bound", "--samples", file, "--gpu-rate", "1000", "--overhead", "soon"},
		{"bound", "--samples", file, "--gpu-rate", "1000", "--cpu-workers", "0"},
	} {
		if r := runCLI(t, append([]string{"bench"}, args...)...); r.code == 0 {
			t.Errorf("bench %v: exit 0, want an error", args)
		}
	}
}

// TestCLIBenchLoad drives the scheduler on the sample crawl without a GPU
// at a light rate: every query is answered in time on the CPU, and
// --costs records each query's features and the CPU cost it met, in every
// mode --mode lists. A missing model file is an error, and an unknown
// mode or --gpu-wait a usage error.
func TestCLIBenchLoad(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	mustRun(t, "index", "--quiet", "--out", idx, sampleCrawl)
	costs := filepath.Join(t.TempDir(), "costs.json")
	res := mustRun(t, "bench", "load", "--index", idx, "--queries", "../../examples/queries.txt",
		"--policy", "hybrid", "--rate", "400", "--duration", "500ms", "--costs", costs)
	var out struct {
		Runs []load.Run `json:"runs"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || len(out.Runs) != 1 {
		t.Fatalf("bench load printed %q: %v", res.stdout, err)
	}
	r := out.Runs[0]
	if r.Queries == 0 || r.Missed != 0 || r.RanOnCPU != uint64(r.Queries) || r.RanOnGPU != 0 {
		t.Errorf("run %+v: want every query answered on the CPU, none missed", r)
	}
	samples := samplesOf(t, costs)
	if len(samples) == 0 || len(samples) > r.Queries {
		t.Fatalf("costs file: %d samples for %d queries", len(samples), r.Queries)
	}
	for _, s := range samples {
		if s.CPU <= 0 || s.GPU != 0 || s.Features.Total <= 0 {
			t.Fatalf("cost sample %+v: want a CPU cost, no GPU cost, and the query's postings", s)
		}
	}
	// Several modes: each query arrives in each, so the costs met cover
	// both; CPU workers may then take several cheap queries at once.
	mustRun(t, "bench", "load", "--index", idx, "--queries", "../../examples/queries.txt",
		"--mode", "and,or", "--cpu-ahead", "4", "--rate", "400", "--duration", "500ms", "--costs", costs)
	modes := map[query.Mode]int{}
	for _, s := range samplesOf(t, costs) {
		modes[s.Features.Mode]++
	}
	if len(modes) != 2 || modes[query.And] == 0 || modes[query.Or] == 0 {
		t.Errorf("--mode and,or: cost samples by mode %v, want both", modes)
	}
	if r := runCLI(t, "bench", "load", "--index", idx, "--queries", "../../examples/queries.txt",
		"--mode", "and,xor", "--duration", "100ms"); r.code != 2 {
		t.Errorf("bench load --mode and,xor: exit %d, want 2", r.code)
	}
	if r := runCLI(t, "bench", "load", "--index", idx, "--queries", "../../examples/queries.txt",
		"--model", filepath.Join(idx, "nope.json"), "--duration", "100ms"); r.code == 0 {
		t.Error("bench load with a missing --model: exit 0, want an error")
	}
	if r := runCLI(t, "bench", "load", "--index", idx, "--queries", "../../examples/queries.txt",
		"--gpu-wait", "sleep", "--duration", "100ms"); r.code != 2 || !strings.Contains(r.stderr, "gpu.wait") {
		t.Errorf("bench load --gpu-wait sleep: exit %d, stderr %q; want a usage error naming gpu.wait", r.code, r.stderr)
	}
}

// TestCLIBenchQueries: the command prints the harness's rows as JSON or
// a table, and refuses a missing file, an unknown mode or engine and a
// bad k with a usage error of one line.
func TestCLIBenchQueries(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	mustRun(t, "index", "--quiet", "--codec", "varint-SU", "--out", idx, sampleCrawl)
	res := mustRun(t, "bench", "queries", "--index", idx, "--queries", "../../examples/queries.txt",
		"--mode", "and", "--threads", "1", "--min-time", "1ms", "--json")
	var out struct {
		Results []struct {
			Engine    string `json:"engine"`
			Algorithm string `json:"algorithm"`
			Queries   int    `json:"queries"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || len(out.Results) != len(queries.DefaultEngines) || out.Results[0].Queries != 200 {
		t.Fatalf("bench queries --json printed %q: %v; want a row per default engine", res.stdout, err)
	}
	if r := out.Results[len(out.Results)-1]; r.Engine != "bitmap" || r.Algorithm != "bitmap-cached" {
		t.Errorf("last row %+v, want the cached bitmap baseline", r)
	}
	res = mustRun(t, "bench", "queries", "--index", idx, "--queries", "../../examples/queries.txt",
		"--mode", "andor", "--engine", "cpu", "--threads", "1", "--min-time", "1ms")
	if !strings.Contains(res.stdout, "and+maxscore") || !strings.Contains(res.stdout, "p99_us") {
		t.Errorf("bench queries --engine cpu printed %q, want a table naming and+maxscore", res.stdout)
	}

	for _, args := range [][]string{
		{"bench", "queries", "--index", idx},
		{"bench", "queries", "--index", idx, "--queries", "../../examples/queries.txt", "--mode", "xor"},
		{"bench", "queries", "--index", idx, "--queries", "../../examples/queries.txt", "--engine", "nosuch"},
		{"bench", "queries", "--index", idx, "--queries", "../../examples/queries.txt", "--k", "0"},
	} {
		if r := runCLI(t, args...); r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("gpusearch %v: exit %d, stderr %q; want 2 and one line", args, r.code, r.stderr)
		}
	}
}

// writeSamples writes samples as dir/samples.json (bench fit --samples'
// format) and returns its path.
func writeSamples(t *testing.T, dir string, samples []schedule.Sample) string {
	t.Helper()
	path := filepath.Join(dir, "samples.json")
	raw, err := json.Marshal(samples)
	if err == nil {
		err = os.WriteFile(path, raw, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// samplesOf reads a samples file (bench fit --samples, bench load --costs).
func samplesOf(t *testing.T, path string) []schedule.Sample {
	t.Helper()
	samples, err := costs.ReadSamples(path)
	if err != nil {
		t.Fatal(err)
	}
	return samples
}
