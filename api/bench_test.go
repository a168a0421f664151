package api

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/query"
)

// BenchmarkSearch compares one query answered by the engine alone, by
// Server.search (analysis, engine, URLs) and by the whole handler without
// the network (parameters, logging, metrics, JSON), cache off.
func BenchmarkSearch(b *testing.B) {
	cfg := testConfig(indexA)
	cfg.Server.CacheEntries = 0
	s, err := New(Options{Config: cfg})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const text = "alpha golf"
	b.Run("engine", func(b *testing.B) {
		g, _ := s.acquire()
		defer s.done(g)
		q, _ := query.Parse(analysis.New(), text, query.AndOr, 10)
		for b.Loop() {
			if _, err := g.cpu.Search(context.Background(), q); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("search", func(b *testing.B) {
		p := searchParams{q: text, mode: query.AndOr, k: 10, engine: "cpu"}
		for b.Loop() {
			if _, err := s.search(context.Background(), p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("handler", func(b *testing.B) {
		h := s.Handler()
		req := httptest.NewRequest("GET", "/search?q=alpha+golf&engine=cpu", nil)
		for b.Loop() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatal(rec.Body)
			}
		}
	})
}
