package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// TestSchedulerUsesModelEngine checks that engine=auto runs its CPU work
// with the engine the cost model beside the index names, and with the cpu
// engine when the model names none.
func TestSchedulerUsesModelEngine(t *testing.T) {
	ix, idx := openSampleIndex(t)
	cpu, err := query.New(ix, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	q := query.Query{Terms: []string{"pars", "json"}, Mode: query.Or, K: 10}
	for _, tt := range []struct{ engine, want string }{{"", "cpu:maxscore"}, {"bmw", "cpu:bmw"}} {
		m := schedule.DefaultModel()
		m.CPUEngine = tt.engine
		if err := m.Save(idx); err != nil {
			t.Fatal(err)
		}
		auto := scheduler(config.Default(), log)(ix, cpu, nil)
		res, err := auto.Search(context.Background(), q)
		if c, ok := auto.(interface{ Close() error }); ok {
			c.Close()
		}
		if err != nil || len(res.Hits) == 0 || !strings.Contains(res.Stats.Algorithm, tt.want) {
			t.Errorf("model engine %q: %d hits, algorithm %q, %v; want %s", tt.engine, len(res.Hits), res.Stats.Algorithm, err, tt.want)
		}
	}
}

// TestSchedulerCPUWorkers checks that server.cpu_workers sizes engine=auto's
// CPU pool, and that 0 leaves the scheduler's default.
func TestSchedulerCPUWorkers(t *testing.T) {
	ix, _ := openSampleIndex(t)
	cpu, err := query.New(ix, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tt := range []struct{ set, want int }{{3, 3}, {0, schedule.DefaultCPUWorkers(schedule.PolicyHybrid, 0)}} {
		cfg := config.Default()
		cfg.Server.CPUWorkers = tt.set
		auto := scheduler(cfg, log)(ix, cpu, nil)
		s, ok := auto.(*schedule.Scheduler)
		if !ok {
			t.Fatalf("engine=auto is a %T, want a *schedule.Scheduler", auto)
		}
		if got := s.CPUWorkers(); got != tt.want {
			t.Errorf("cpu_workers %d: %d CPU workers, want %d", tt.set, got, tt.want)
		}
		s.Close()
	}
}
