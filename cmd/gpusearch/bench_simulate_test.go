package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// TestCLIBenchSimulate replays two kinds of queries, light ones the CPU
// answers about as fast as the GPU and heavy ones the GPU answers 50 times
// faster: hybrid must sustain more than either processor alone. A samples
// file without samples is refused.
func TestCLIBenchSimulate(t *testing.T) {
	dir := t.TempDir()
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
	if err := model.Save(dir); err != nil {
		t.Fatal(err)
	}
	samplesFile := writeSamples(t, dir, samples)
	res := mustRun(t, "bench", "simulate", "--samples", samplesFile, "--model", filepath.Join(dir, schedule.ModelFile),
		"--cpu-workers", "4", "--duration", "500ms")
	var out struct {
		Max map[string]struct {
			Rate   float64 `json:"rate"`
			Missed int     `json:"missed"`
		} `json:"max_rate_without_misses"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("bench simulate printed %q: %v", res.stdout, err)
	}
	cpu, gpu, hybrid := out.Max["cpu"], out.Max["gpu"], out.Max["hybrid"]
	if cpu.Rate <= 0 || gpu.Rate <= 0 || hybrid.Rate <= max(cpu.Rate, gpu.Rate) || hybrid.Missed != 0 {
		t.Errorf("max rates cpu %v, gpu %v, hybrid %v (missed %d): want hybrid above both", cpu.Rate, gpu.Rate, hybrid.Rate, hybrid.Missed)
	}
	// An overhead of 1 ms on each CPU job (mean 2.55 ms measured) makes
	// the CPU alone about 1.4x slower.
	res = mustRun(t, "bench", "simulate", "--samples", samplesFile, "--model", filepath.Join(dir, schedule.ModelFile),
		"--cpu-workers", "4", "--duration", "500ms", "--policy", "cpu", "--cpu-overhead", "1ms")
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("bench simulate printed %q: %v", res.stdout, err)
	}
	if slow := out.Max["cpu"].Rate; slow >= cpu.Rate/1.2 || slow <= cpu.Rate/1.8 {
		t.Errorf("cpu alone %v with 1 ms of overhead a job, %v without: want about 1.4x slower", slow, cpu.Rate)
	}
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte("[]"), 0o644)
	if r := runCLI(t, "bench", "simulate", "--samples", empty, "--model", filepath.Join(dir, schedule.ModelFile)); r.code == 0 {
		t.Errorf("bench simulate on no samples: exit 0, want an error")
	}
}
