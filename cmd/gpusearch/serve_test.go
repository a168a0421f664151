package main

import (
	"context"
	"io"
	"log/slog"
	"runtime"
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
// CPU pool, and that 0 means the scheduler's default without a GPU and
// servedCPUWorkers beside one.
func TestSchedulerCPUWorkers(t *testing.T) {
	ix, _ := openSampleIndex(t)
	cpu, err := query.New(ix, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// Enough cores that every default differs from the others (32: 2
	// served, 27 in process beside 3 GPU workers, 32 without a GPU).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(32))
	for _, tt := range []struct {
		set  int
		gpu  []query.Engine // stand-ins: the CPU engine
		want int
	}{
		{3, nil, 3},
		{0, nil, schedule.DefaultCPUWorkers(schedule.PolicyHybrid, 0)},
		{0, []query.Engine{cpu}, 2},
		{5, []query.Engine{cpu}, 5},
		{0, []query.Engine{cpu, cpu}, 2},
	} {
		cfg := config.Default()
		cfg.Server.CPUWorkers = tt.set
		auto := scheduler(cfg, log)(ix, cpu, tt.gpu)
		s, ok := auto.(*schedule.Scheduler)
		if !ok {
			t.Fatalf("engine=auto is a %T, want a *schedule.Scheduler", auto)
		}
		if got := s.CPUWorkers(); got != tt.want {
			t.Errorf("cpu_workers %d, GPU %v: %d CPU workers, want %d", tt.set, tt.gpu != nil, got, tt.want)
		}
		s.Close()
	}
}
