package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/bench/costs"
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
