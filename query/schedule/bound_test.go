package schedule

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func sample(cpu, gpu time.Duration) Sample { return Sample{CPU: cpu, GPU: gpu} }

func TestBound(t *testing.T) {
	us := time.Microsecond
	for _, tt := range []struct {
		name    string
		samples []Sample
		cfg     BoundConfig
		rate    float64
		toCPU   float64
	}{
		// Each processor takes the query it is best at: 1 ms a round.
		{"one each", []Sample{sample(ms, ms), sample(10*ms, ms)}, BoundConfig{CPUWorkers: 1}, 2000, 0.5},
		// Identical queries on equal processors: half each, 2 per ms.
		{"split one query", []Sample{sample(ms, ms)}, BoundConfig{CPUWorkers: 1}, 2000, 0.5},
		// Four workers make the CPU four times stronger: 4/5 of the load.
		{"workers", []Sample{sample(ms, ms)}, BoundConfig{CPUWorkers: 4}, 5000, 0.8},
		// The overhead doubles the CPU's cost: a third of the load.
		{"overhead", []Sample{sample(ms, ms)}, BoundConfig{CPUWorkers: 1, CPUOverhead: ms}, 1500, 1.0 / 3},
		// The GPU alone sustains 3,000 q/s whatever its samples say.
		{"gpu rate", []Sample{sample(ms, 7*us)}, BoundConfig{CPUWorkers: 1, GPURate: 3000}, 4000, 0.25},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Bound(tt.samples, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.Rate-tt.rate) > 1e-6*tt.rate || math.Abs(got.ToCPU-tt.toCPU) > 1e-9 {
				t.Errorf("Bound = %+v, want rate %v, to CPU %v", got, tt.rate, tt.toCPU)
			}
		})
	}
}

// TestBoundAgainstAssignments: on random mixes, the bound is never below
// what the best whole-query assignment (found exhaustively) sustains, and
// exceeds it by no more than splitting one query can give.
func TestBoundAgainstAssignments(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 300 {
		n := 1 + r.IntN(9)
		samples := make([]Sample, n)
		for i := range samples {
			samples[i] = sample(time.Duration(1+r.IntN(5000))*time.Microsecond, time.Duration(1+r.IntN(500))*time.Microsecond)
		}
		cfg := BoundConfig{CPUWorkers: 1 + r.IntN(16), CPUOverhead: time.Duration(r.IntN(50)) * time.Microsecond}
		got, err := Bound(samples, cfg)
		if err != nil {
			t.Fatal(err)
		}
		w := float64(cfg.CPUWorkers)
		bestRound, slack := math.Inf(1), 0.0
		for mask := range 1 << n {
			var c, g float64
			for i, s := range samples {
				if mask>>i&1 == 1 {
					c += (s.CPU + cfg.CPUOverhead).Seconds() / w
				} else {
					g += s.GPU.Seconds()
				}
			}
			bestRound = min(bestRound, max(c, g))
		}
		for _, s := range samples {
			slack = max(slack, (s.CPU+cfg.CPUOverhead).Seconds()/w, s.GPU.Seconds())
		}
		round := float64(n) / got.Rate
		if round > bestRound*(1+1e-9) || round < bestRound-slack-1e-12 {
			t.Fatalf("trial %d: %d queries a round take %v at the bound, %v by the best assignment (slack %v)", trial, n, round, bestRound, slack)
		}
	}
}

func TestOverheadFor(t *testing.T) {
	samples := []Sample{sample(50*time.Microsecond, ms), sample(150*time.Microsecond, ms)}
	o := OverheadFor(samples, 10, 50000) // 10 workers at 50,000 q/s: 200 us a query
	if o != 100*time.Microsecond {
		t.Fatalf("OverheadFor = %v, want 100us", o)
	}
	got, err := Bound(samples, BoundConfig{CPUWorkers: 10, CPUOverhead: o})
	if err != nil || math.Abs(got.CPUAlone-50000) > 1e-6 {
		t.Errorf("CPU alone with that overhead: %+v, %v; want 50,000", got, err)
	}
	if o := OverheadFor(samples, 10, 1e6); o != 0 {
		t.Errorf("a rate faster than the samples: overhead %v, want 0", o)
	}
}

func TestBoundErrors(t *testing.T) {
	for _, tt := range []struct {
		name    string
		samples []Sample
		cfg     BoundConfig
	}{
		{"no samples", nil, BoundConfig{CPUWorkers: 1}},
		{"no workers", []Sample{sample(ms, ms)}, BoundConfig{}},
		{"no GPU time", []Sample{sample(ms, 0)}, BoundConfig{CPUWorkers: 1}},
		{"negative rate", []Sample{sample(ms, ms)}, BoundConfig{CPUWorkers: 1, GPURate: -1}},
	} {
		if _, err := Bound(tt.samples, tt.cfg); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}
