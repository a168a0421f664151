package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/query/schedule"
)

// TestCLIBenchBound: half the queries cost 1 ms on a core and the other
// half 9 ms, each 1 ms of the GPU's, scaled to a GPU alone of 1,000 q/s;
// with 2 CPU workers the best split gives the CPU the light half and a
// bit, and --cpu-rate adds the overhead that matches it. Bad flags and a
// samples file without samples are refused.
func TestCLIBenchBound(t *testing.T) {
	dir := t.TempDir()
	var samples []schedule.Sample
	for i := range 10 {
		s := schedule.Sample{CPU: time.Millisecond, GPU: time.Millisecond}
		if i%2 == 1 {
			s.CPU = 9 * time.Millisecond
		}
		samples = append(samples, s)
	}
	file := writeSamples(t, dir, samples)
	res := mustRun(t, "bench", "bound", "--samples", file, "--gpu-rate", "1000", "--cpu-workers", "2", "--overhead", "0s,1ms",
		"--cpu-rate", "250", "--cpu-alone-workers", "2")
	var out struct {
		Bounds []boundRow `json:"bounds"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil || len(out.Bounds) != 3 {
		t.Fatalf("bench bound printed %q: %v", res.stdout, err)
	}
	// No overhead: the CPU (2 workers) takes the 5 light queries (2.5 ms
	// a round) and x of a heavy one (4.5 ms each), the GPU 5-x ms: x =
	// 5/11, a round of 10 in 5-x ms. With 1 ms of overhead, the light ones
	// fill the CPU's 5 ms exactly.
	for i, want := range []struct{ overhead, rate, toCPU float64 }{
		{0, 10 / (5 - 5.0/11) * 1e3, (5 + 5.0/11) / 10},
		{1000, 10 / 5e-3, 0.5},
	} {
		b := out.Bounds[i]
		if b.OverheadUS != want.overhead || math.Abs(b.Rate-want.rate) > 1e-6*want.rate || math.Abs(b.ToCPU-want.toCPU) > 1e-9 ||
			b.GPUAlone != 1000 || math.Abs(b.OverBetter-b.Rate/1000) > 1e-9 {
			t.Errorf("bound %d: %+v, want overhead %vus, rate %v, to CPU %v", i, b, want.overhead, want.rate, want.toCPU)
		}
	}
	// 250 q/s on 2 workers is 8 ms a query against 5 ms fitted: 3 ms.
	if c := out.Bounds[2]; !c.Calibrated || c.OverheadUS != 3000 || math.Abs(c.CPUAlone-250) > 1e-6 {
		t.Errorf("calibrated bound %+v, want 3,000us and the CPU alone at 250 q/s", c)
	}
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte("[]"), 0o644)
	for _, args := range [][]string{
		{"--samples", empty, "--gpu-rate", "1000"},
		{"--samples", file},
		{"--samples", file, "--gpu-rate", "1000", "--overhead", "soon"},
		{"--samples", file, "--gpu-rate", "1000", "--cpu-workers", "0"},
	} {
		if r := runCLI(t, append([]string{"bench", "bound"}, args...)...); r.code == 0 {
			t.Errorf("bench bound %v: exit 0, want an error", args)
		}
	}
}
