package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/query/schedule"
)

// TestCLIBenchFit fits the cost model on the sample crawl, without a GPU:
// --cpu-engine auto times every candidate CPU engine, fits a model for
// each (the per-query choice) and names the fastest over all queries as
// the fallback, reports what the choice costs, and writes the samples it
// fitted (the choice's times); a named engine is kept as given, alone.
func TestCLIBenchFit(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	mustRun(t, "index", "--quiet", "--out", idx, sampleCrawl)
	samplesFile := filepath.Join(t.TempDir(), "samples.json")
	res := mustRun(t, "bench", "fit", "--index", idx, "--queries", "../../examples/queries.txt",
		"--mode", "or", "--repeat", "1", "--samples", samplesFile)
	var out struct {
		CPUEngine string             `json:"cpu_engine"`
		Totals    map[string]float64 `json:"cpu_total_seconds"`
		Queries   int                `json:"queries"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("bench fit printed %q: %v", res.stdout, err)
	}
	if out.Queries != 200 || len(out.Totals) != len(fitCandidates)+2 {
		t.Fatalf("bench fit = %+v, want 200 queries and a total per candidate %v, the choice and the oracle", out, fitCandidates)
	}
	if o := out.Totals["oracle"]; o <= 0 || o > out.Totals["choice"] || o > out.Totals[out.CPUEngine] {
		t.Errorf("totals %v: the oracle must be positive and no slower than the choice or any engine", out.Totals)
	}
	for _, name := range fitCandidates {
		if out.Totals[name] <= 0 || out.Totals[name] < out.Totals[out.CPUEngine] {
			t.Errorf("candidate %s: total %v s, chosen %s with %v s: want the fastest chosen", name, out.Totals[name], out.CPUEngine, out.Totals[out.CPUEngine])
		}
	}
	model, fitted, err := schedule.LoadModel(idx)
	// The choice is kept only where it beats the fallback on held-out
	// queries, which on this small crawl's microsecond timings it may not.
	if err != nil || !fitted || model.CPUEngine != out.CPUEngine ||
		model.CPUEngines() != strings.Join(fitCandidates, "|") && model.CPUEngines() != out.CPUEngine {
		t.Fatalf("LoadModel = %+v, %v, %v; want the fitted model with cpu_engine %s, choosing among all candidates or none", model, fitted, err, out.CPUEngine)
	}
	if samples := samplesOf(t, samplesFile); len(samples) != 200 || samples[0].CPU <= 0 {
		t.Fatalf("samples file: %d samples, want 200 with CPU times", len(samples))
	}

	mustRun(t, "bench", "fit", "--index", idx, "--queries", "../../examples/queries.txt",
		"--mode", "or", "--repeat", "1", "--cpu-engine", "bmw")
	if model, _, err := schedule.LoadModel(idx); err != nil || model.CPUEngine != "bmw" || model.CPUAlgorithms != nil {
		t.Errorf("after --cpu-engine bmw: model engine %q, choosing among %d, %v; want bmw alone", model.CPUEngine, len(model.CPUAlgorithms), err)
	}
	mustRun(t, "bench", "fit", "--index", idx, "--queries", "../../examples/queries.txt",
		"--mode", "or", "--repeat", "1", "--cpu-engine", "wand,bmw")
	if model, _, err := schedule.LoadModel(idx); err != nil || model.CPUEngines() != "wand|bmw" && model.CPUEngines() != model.CPUEngine ||
		model.CPUEngine != "wand" && model.CPUEngine != "bmw" {
		t.Errorf("after --cpu-engine wand,bmw: engine %q, choosing among %q, %v; want wand|bmw or one of them", model.CPUEngine, model.CPUEngines(), err)
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
	samples, err := readSamples(path)
	if err != nil {
		t.Fatal(err)
	}
	return samples
}
