package schedule

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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

// TestFitByMode: AND's cost follows the shortest list, OR's the total
// postings, so one model with a mode indicator cannot fit both, and Fit
// keeps a model per mode; on one mode it keeps one model.
func TestFitByMode(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	var samples []Sample
	for i := range 600 {
		f := Features{Terms: 2 + r.IntN(3), Mode: []query.Mode{query.And, query.Or}[i%2]}
		f.Shortest = float64(1 + r.IntN(1e5))
		f.Second = f.Shortest + float64(r.IntN(1e5))
		f.Longest = f.Second + float64(r.IntN(1e6))
		f.Total = f.Shortest + f.Second + f.Longest
		noise := 1 + 0.02*(r.Float64()*2-1)
		sec := 1e-9 * f.Total
		if f.Mode == query.And {
			sec = 1e-6 * math.Sqrt(f.Shortest)
		}
		samples = append(samples, Sample{Features: f, CPU: time.Duration(sec * noise * float64(time.Second))})
	}
	m, err := Fit(samples, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.CPU.ByMode) != 2 || m.CPUError > 0.05 {
		t.Errorf("two modes: CPU models by mode %v, held-out error %.3f; want and and or, < 0.05", m.CPU.ByMode, m.CPUError)
	}
	var fs []Features
	for _, s := range samples[:20] {
		fs = append(fs, s.Features)
		s.Features.Mode = query.AndOr // priced by the model over every mode
		fs = append(fs, s.Features)
	}
	checkRoundTrip(t, m, fs)
	var or []Sample
	for _, s := range samples {
		if s.Features.Mode == query.Or {
			or = append(or, s)
		}
	}
	if m, err = Fit(or, 4); err != nil || m.CPU.ByMode != nil {
		t.Errorf("one mode: CPU models by mode %v, err %v; want none", m.CPU.ByMode, err)
	}
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
		"bad engine cost": `{"cpu":{"weights":[0,0,0,0,0,0,0,0,0]},"gpu":{"weights":[0,0,0,0,0,0,0,0,0]},` +
			`"cpu_algorithms":[{"engine":"bmw","cost":{"weights":[1]}}]}`,
		"unnamed engine": `{"cpu":{"weights":[0,0,0,0,0,0,0,0,0]},"gpu":{"weights":[0,0,0,0,0,0,0,0,0]},` +
			`"cpu_algorithms":[{"cost":{"weights":[0,0,0,0,0,0,0,0,0]}}]}`,
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

// choiceModel prices "exhaustive" at 10 ns a posting and "bmw" at a fixed
// 20 us, so that the choice switches at 2,000 postings.
func choiceModel() *Model {
	m := DefaultModel()
	m.CPUEngine = "bmw"
	m.CPUAlgorithms = []AlgorithmModel{
		{Engine: "exhaustive", Cost: Linear{Form: FormLog, Weights: []float64{math.Log(10e-9), 0, 0, 1, 0, 0, 0, 0, 0}}},
		{Engine: "bmw", Cost: Linear{Form: FormLinear, Weights: []float64{20e-6, 0, 0, 0, 0, 0, 0, 0}}},
	}
	return m
}

func TestCPUChoice(t *testing.T) {
	m := choiceModel()
	for _, tt := range []struct {
		total float64
		want  int
	}{{10, 0}, {1500, 0}, {2500, 1}, {1e6, 1}} {
		if got := m.CPUChoice(Features{Terms: 2, Total: tt.total, Mode: query.Or}); got != tt.want {
			t.Errorf("total %v: choice %d, want %d", tt.total, got, tt.want)
		}
	}
	if got := DefaultModel().CPUChoice(Features{Total: 10}); got != -1 {
		t.Errorf("a model without engines chose %d, want -1", got)
	}
	if got := m.CPUEngines(); got != "exhaustive|bmw" {
		t.Errorf("CPUEngines = %q", got)
	}
	fixed := m.WithCPUEngine("exhaustive")
	if fixed.CPUAlgorithms != nil || fixed.CPUEngineName() != "exhaustive" || !reflect.DeepEqual(fixed.CPU, m.CPUAlgorithms[0].Cost) {
		t.Errorf("WithCPUEngine(exhaustive) = %+v: want exhaustive alone, priced by its own model", fixed)
	}
	if len(m.CPUAlgorithms) != 2 {
		t.Error("WithCPUEngine changed the model it was called on")
	}
	checkRoundTrip(t, m, []Features{{Total: 10}, {Total: 1e6}})
}

// TestFitChoice fits two engines whose costs cross: one grows with the
// postings, the other is flat. The choice must follow the crossing, cost
// what the cheaper engine costs, and keep each engine's model.
func TestFitChoice(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	samples := make([][]Sample, 2)
	for range 400 {
		f := Features{Terms: 2, Mode: query.Or}
		f.Total = 200 * math.Exp(r.Float64()*math.Log(5000)) // 200 to 10^6
		f.Shortest, f.Longest = f.Total/4, f.Total*3/4
		noise := func() float64 { return 1 + 0.02*(r.Float64()*2-1) }
		gpu := 30 * time.Microsecond
		samples[0] = append(samples[0], Sample{Features: f, CPU: time.Duration(10e-9 * f.Total * noise() * float64(time.Second)), GPU: gpu})
		samples[1] = append(samples[1], Sample{Features: f, CPU: time.Duration(20e-6 * noise() * float64(time.Second)), GPU: gpu})
	}
	m, err := FitChoice([]string{"exhaustive", "bmw"}, samples, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.CPUAlgorithms) != 2 || m.CPUAlgorithms[0].Engine != "exhaustive" || m.CPUAlgorithms[0].Error > 0.05 || m.CPUAlgorithms[1].Error > 0.05 {
		t.Fatalf("FitChoice algorithms = %+v, want both fitted within 5%%", m.CPUAlgorithms)
	}
	// bmw is the faster over all queries (most have more than 2,000
	// postings): the fallback.
	if m.CPUEngine != "bmw" || !reflect.DeepEqual(m.CPU, m.CPUAlgorithms[1].Cost) || m.CPUError > 0.05 {
		t.Errorf("fallback %q (cpu %+v), choice's error %.3f: want bmw with its own cost, error < 0.05", m.CPUEngine, m.CPU, m.CPUError)
	}
	for i, s := range Chosen(m, []string{"exhaustive", "bmw"}, samples) {
		f := s.Features
		if f.Total > 1800 && f.Total < 2200 {
			continue // near the crossing either is as good
		}
		if want := min(samples[0][i].CPU, samples[1][i].CPU); s.CPU != want {
			t.Fatalf("total %.0f: chosen cost %v, want the cheaper %v", f.Total, s.CPU, want)
		}
		if c, _ := m.Predict(f); math.Abs(float64(c-s.CPU)) > 0.1*float64(s.CPU) {
			t.Errorf("total %.0f: predicted %v for a choice that costs %v", f.Total, c, s.CPU)
		}
	}
	if _, err := FitChoice([]string{"a", "b"}, [][]Sample{samples[0], samples[1][:10]}, 4); err == nil {
		t.Error("FitChoice accepted sample sets of different lengths")
	}
}

// TestFitChoiceKeepsOneEngine: when one engine is faster on every query,
// the choice cannot save time over it and is dropped.
func TestFitChoiceKeepsOneEngine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	samples := make([][]Sample, 2)
	for range 200 {
		f := Features{Terms: 2, Mode: query.Or, Total: float64(100 + r.IntN(1e5))}
		f.Shortest, f.Longest = f.Total/4, f.Total*3/4
		cost := time.Duration(20e-9*f.Total*float64(time.Second)) + time.Duration(r.IntN(5000))
		samples[0] = append(samples[0], Sample{Features: f, CPU: 2 * cost})
		samples[1] = append(samples[1], Sample{Features: f, CPU: cost})
	}
	m, err := FitChoice([]string{"wand", "bmw"}, samples, 4)
	if err != nil {
		t.Fatal(err)
	}
	if m.CPUEngine != "bmw" || m.CPUAlgorithms != nil || m.CPUEngines() != "bmw" {
		t.Errorf("FitChoice = engine %q choosing among %q, want bmw alone", m.CPUEngine, m.CPUEngines())
	}
	// Every query then runs on bmw, and costs what bmw took.
	for i, s := range Chosen(m, []string{"wand", "bmw"}, samples) {
		if s.CPU != samples[1][i].CPU {
			t.Fatalf("query %d: chosen cost %v, want bmw's %v", i, s.CPU, samples[1][i].CPU)
		}
	}
}

// TestFeaturesOf compares FeaturesOf with the features read plainly (the
// list lengths sorted) on random queries, with repeated and unknown terms.
func TestFeaturesOf(t *testing.T) {
	ix := randomIndex(t, 500)
	r := rand.New(rand.NewPCG(4, 4))
	for range 500 {
		q := query.Query{Mode: query.And}
		for range r.IntN(7) {
			q.Terms = append(q.Terms, fmt.Sprintf("t%03d", r.IntN(160))) // t120 and above are unknown
		}
		var lens []float64
		want := Features{Mode: q.Mode}
		for _, term := range q.Terms {
			if info, ok := ix.Lookup(term); ok {
				lens = append(lens, float64(info.DF))
				want.Total += float64(info.DF)
			}
		}
		slices.Sort(lens)
		want.Terms = len(lens)
		if len(lens) > 0 {
			want.Shortest, want.Longest = lens[0], lens[len(lens)-1]
		}
		if len(lens) > 1 {
			want.Second = lens[1]
		}
		if got := FeaturesOf(ix, q); got != want {
			t.Fatalf("%v: got %+v, want %+v", q.Terms, got, want)
		}
	}
}
