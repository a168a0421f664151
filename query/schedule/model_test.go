package schedule

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/query"
)

func TestFitPicksForm(t *testing.T) {
	// The CPU's cost is a power of the postings (log form); the GPU's a
	// fixed cost plus a cost per posting (linear form), as for batches.
	r := rand.New(rand.NewPCG(6, 6))
	var samples []Sample
	for range 400 {
		f := Features{Terms: 1 + r.IntN(4), Mode: query.Or}
		f.Shortest = float64(1 + r.IntN(1e5))
		f.Longest = f.Shortest + float64(r.IntN(1e6))
		f.Total = f.Shortest + f.Longest + float64(r.IntN(1e5))
		noise := func() float64 { return 1 + 0.02*(r.Float64()*2-1) }
		cpu := time.Duration(3e-9 * f.Total * noise() * float64(time.Second))
		gpu := time.Duration((40e-6 + 0.2e-9*f.Total) * noise() * float64(time.Second))
		samples = append(samples, Sample{Features: f, CPU: cpu, GPU: gpu})
	}
	for i := range samples {
		samples[i].CPU = time.Duration(float64(samples[i].CPU) * (samples[i].Features.Total / 1e5))
	}
	m, err := Fit(samples, 4)
	if err != nil {
		t.Fatal(err)
	}
	if m.CPU.Form != FormLog || m.GPU.Form != FormLinear {
		t.Errorf("forms: cpu %q, gpu %q; want %q, %q", m.CPU.Form, m.GPU.Form, FormLog, FormLinear)
	}
	if m.CPUError > 0.05 || m.GPUError > 0.05 {
		t.Errorf("held-out mean relative error cpu %.3f gpu %.3f, want < 0.05", m.CPUError, m.GPUError)
	}
	var fs []Features
	for _, s := range samples[:20] {
		fs = append(fs, s.Features)
	}
	checkRoundTrip(t, m, fs)
}

// checkRoundTrip saves m beside an index and checks that the model read
// back predicts as m does for every fs.
func checkRoundTrip(t *testing.T, m *Model, fs []Features) {
	t.Helper()
	dir := t.TempDir()
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	back, ok, err := LoadModel(dir)
	if err != nil || !ok {
		t.Fatalf("LoadModel = %v, %v", ok, err)
	}
	for _, f := range fs {
		a, b := m.Predict(f)
		c, d := back.Predict(f)
		if a != c || b != d {
			t.Fatalf("loaded model predicts %v/%v, saved one %v/%v", c, d, a, b)
		}
	}
}

func TestLoadModelRefusesUnknownForm(t *testing.T) {
	for name, body := range map[string]string{
		"unknown form":  `{"cpu":{"form":"cubic","weights":[1,2]},"gpu":{"weights":[0,0,0,0,0,0,0,0,0]}}`,
		"wrong weights": `{"cpu":{"form":"linear","weights":[1,2,3]},"gpu":{"weights":[0,0,0,0,0,0,0,0,0]}}`,
		"older model":   `{"cpu":{"weights":[0,0,0,0,0,0,0]},"gpu":{"weights":[0,0,0,0,0,0,0]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, ModelFile), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := LoadModel(dir); err == nil || !strings.Contains(err.Error(), "refit") {
				t.Errorf("LoadModel = %v, want an error asking to refit", err)
			}
		})
	}
}
