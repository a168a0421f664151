package main

import (
	"context"
	"errors"
	"testing"

	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/query"
)

// TestOpenEngine opens every name the command line takes: each registered
// engine answers a query, or, needing a GPU this build or machine lacks,
// fails with query.ErrNoGPU; an unknown name is a usage error.
func TestOpenEngine(t *testing.T) {
	ix, _ := openSampleIndex(t)
	cfg := config.Default().GPU
	if _, err := query.Lookup("gpu"); err != nil {
		t.Fatalf("the GPU engine is not linked in: %v", err)
	}
	for _, name := range append(query.Engines(), "auto") {
		t.Run(name, func(t *testing.T) {
			e, closeEngine, err := openEngine(ix, cfg, name)
			if err != nil {
				if d, _ := query.Lookup(name); !d.Needs.GPU || !errors.Is(err, query.ErrNoGPU) {
					t.Fatalf("openEngine(%s): %v", name, err)
				}
				return
			}
			defer closeEngine()
			res, err := e.Search(context.Background(), query.Query{Terms: []string{"pars", "json"}, Mode: query.Or, K: 10})
			if err != nil || len(res.Hits) == 0 {
				t.Errorf("openEngine(%s).Search = %d hits, %v", name, len(res.Hits), err)
			}
		})
	}
	var ue usageError
	if _, _, err := openEngine(ix, cfg, "quantum"); !errors.As(err, &ue) {
		t.Errorf("openEngine(quantum) error = %v, want a usage error", err)
	}
}
