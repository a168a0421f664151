package gpubench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	// Every codec family registers itself; indexes name their codecs.
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
	"github.com/gpusearch/gpusearch/gpu"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// fakeGPUEngine stands in for the GPU engine in a CPU build: the
// exhaustive scorer, with made-up phases.
type fakeGPUEngine struct{ query.Engine }

func (f fakeGPUEngine) SearchBatch(ctx context.Context, qs []query.Query) ([]query.Result, error) {
	var rs []query.Result
	for _, q := range qs {
		r, err := f.Search(ctx, q)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

func (f fakeGPUEngine) Profile(ctx context.Context, q query.Query) (query.Result, gpu.Phases, error) {
	r, err := f.Search(ctx, q)
	var ph gpu.Phases
	ph[gpu.PhaseDecode], ph[gpu.PhaseTopK] = 2*time.Microsecond, time.Microsecond
	return r, ph, err
}

func TestQueries(t *testing.T) {
	ix := testindex.Crawl(t, indexer.Options{Workers: 2})
	texts := []string{"parse json", "http server timeout", "the", "read file line by line", "qwxzvk"}
	var cpus []query.Engine
	for _, name := range []string{"exhaustive", "daat"} {
		e, err := query.New(ix, name)
		if err != nil {
			t.Fatal(err)
		}
		cpus = append(cpus, e)
	}
	o := QueriesOptions{Texts: texts, Modes: []query.Mode{query.And, query.Or}, CPUNames: []string{"exhaustive", "daat"}, CPU: cpus,
		K: 10, Callers: 3, BigPostings: 100, Batches: []int{1, 3}}
	rep, err := Queries(context.Background(), ix, fakeGPUEngine{query.NewExhaustive(ix)}, o)
	if err != nil {
		t.Fatalf("Queries: %v", err)
	}
	if len(rep.Modes) != 2 {
		t.Fatalf("%d modes, want 2", len(rep.Modes))
	}
	for _, m := range rep.Modes {
		if m.Checked != 5 || m.Mismatches != 0 || m.BatchDiffers != 0 {
			t.Errorf("mode %s: %d checked, %d mismatches, %d batch differences; want 5, 0, 0", m.Mode, m.Checked, m.Mismatches, m.BatchDiffers)
		}
		if len(m.Latency) != 6 || len(m.Speedups) == 0 || len(m.Batches) != 2 || m.BigQueries == 0 || m.BigQueries == 5 {
			t.Errorf("mode %s: %d latency rows, %d speedups, %d batch rows, %d big queries", m.Mode, len(m.Latency), len(m.Speedups), len(m.Batches), m.BigQueries)
		}
		if p := m.Phases[0]; p.US["decode"] != 2 || p.TotalUS != 3 {
			t.Errorf("mode %s: phases %+v, want decode 2us of 3", m.Mode, p)
		}
	}
	var b bytes.Buffer
	rep.Print(&b)
	for _, want := range []string{"mode and", "mode or", "speedup vs exhaustive", "phases big", "batched q/s: 1:", "(3 callers)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
