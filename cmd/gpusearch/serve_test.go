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
