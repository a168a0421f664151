package gpubench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// TestMulti: two setups of stand-in engines on the sample crawl, the
// second keeping only each answer's first hit: latency, throughput per
// batch size with batch latencies against the deadline, and the second's
// answers compared with the first's (those of more than one hit differ).
func TestMulti(t *testing.T) {
	ix := testindex.Crawl(t, indexer.Options{Workers: 2})
	texts := []string{"parse json", "http server timeout", "read file line by line", "qwxzvk", "go"}
	exact := MultiSetup{Name: "a", Shards: 1, Devices: []int{0},
		Open: func() (query.BatchEngine, error) { return fakeGPUEngine{query.NewExhaustive(ix)}, nil }}
	short := MultiSetup{Name: "b", Shards: 2, Devices: []int{0, 1},
		Open: func() (query.BatchEngine, error) { return truncated{fakeGPUEngine{query.NewExhaustive(ix)}}, nil }}
	o := MultiOptions{Texts: texts, Modes: []query.Mode{query.And, query.Or}, K: 10, Batches: []int{1, 2, 10}, Callers: 2,
		Deadline: time.Hour, Setups: []MultiSetup{exact, short}}
	rep, err := Multi(context.Background(), ix, o)
	if err != nil {
		t.Fatal(err)
	}
	several := map[string]int{} // per mode, the queries of more than one hit
	for _, m := range o.Modes {
		for _, text := range texts {
			q, err := query.Parse(analysis.New(), text, m, o.K)
			if err != nil {
				t.Fatal(err)
			}
			if r, _ := query.NewExhaustive(ix).Search(context.Background(), q); len(r.Hits) > 1 {
				several[string(m)]++
			}
		}
	}
	if len(rep.Setups) != 2 || len(rep.Ratios) != 2 {
		t.Fatalf("%d setups, %d ratios, want 2 and 2", len(rep.Setups), len(rep.Ratios))
	}
	for _, s := range rep.Setups {
		for _, m := range s.Modes {
			if len(m.Batches) != 3 || m.DeadlineQP <= 0 || m.MeanUS <= 0 {
				t.Errorf("%s %s: %+v", s.Name, m.Mode, m)
			}
			for _, b := range m.Batches {
				if !b.Met || b.MaxMS < b.P50MS {
					t.Errorf("%s %s batch %d: %+v", s.Name, m.Mode, b.Batch, b)
				}
			}
			want := 0
			if s.Name == "b" {
				want = several[m.Mode]
			}
			if m.Mismatches != want {
				t.Errorf("%s %s: %d mismatches, want %d", s.Name, m.Mode, m.Mismatches, want)
			}
		}
	}
	var out bytes.Buffer
	rep.Print(&out)
	if !strings.Contains(out.String(), "b and:") {
		t.Errorf("table lacks the ratios:\n%s", out.String())
	}
	// A deadline no batch meets leaves no rate.
	o.Deadline, o.Setups = time.Nanosecond, o.Setups[:1]
	if rep, err = Multi(context.Background(), ix, o); err != nil || rep.Setups[0].Modes[0].DeadlineQP != 0 {
		t.Errorf("deadline of 1ns: %v, %+v", err, rep.Setups[0].Modes[0])
	}
}

// truncated answers with only the first hit.
type truncated struct{ fakeGPUEngine }

func (e truncated) Search(ctx context.Context, q query.Query) (query.Result, error) {
	r, err := e.fakeGPUEngine.Search(ctx, q)
	r.Hits = r.Hits[:min(1, len(r.Hits))]
	return r, err
}

func (e truncated) SearchBatch(ctx context.Context, qs []query.Query) ([]query.Result, error) {
	var rs []query.Result
	for _, q := range qs {
		r, err := e.Search(ctx, q)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}
