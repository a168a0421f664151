package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// cliQueryRow is the JSON contract of one `bench queries --json` row,
// decoded on its own so that the test checks the printed shape.
type cliQueryRow struct {
	Engine         string   `json:"engine"`
	Algorithm      string   `json:"algorithm"`
	Mode           string   `json:"mode"`
	Threads        int      `json:"threads"`
	Queries        int      `json:"queries"`
	MeanUS         *float64 `json:"mean_us"`
	P50US          *float64 `json:"p50_us"`
	P95US          *float64 `json:"p95_us"`
	P99US          *float64 `json:"p99_us"`
	QPS            float64  `json:"qps"`
	PostingsScored *float64 `json:"postings_scored"`
	BlocksDecoded  float64  `json:"blocks_decoded"`
}

func TestCLIBenchQueries(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	mustRun(t, "index", "--quiet", "--codec", "varint-SU", "--out", idx, sampleCrawl)
	res := mustRun(t, "bench", "queries", "--index", idx, "--queries", "../../examples/queries.txt",
		"--mode", "and,or", "--k", "10", "--min-time", "1ms", "--json")
	var out struct {
		Results []cliQueryRow `json:"results"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("bench queries --json printed %q: %v", res.stdout, err)
	}
	threads := []int{1}
	if n := runtime.GOMAXPROCS(0); n > 1 {
		threads = append(threads, n)
	}
	engines := []string{"exhaustive", "daat", "maxscore", "wand", "bmw", "bitmap", "bitmap"}
	if want := 2 * len(engines) * len(threads); len(out.Results) != want {
		t.Fatalf("bench queries: %d rows, want %d (2 modes x %d engines x threads %v)", len(out.Results), want, len(engines), threads)
	}
	postings := map[string]float64{}
	for i, r := range out.Results {
		wantMode := []string{"and", "or"}[i/(len(engines)*len(threads))]
		wantEngine := engines[i/len(threads)%len(engines)]
		if r.Engine != wantEngine || r.Mode != wantMode || r.Threads != threads[i%len(threads)] {
			t.Errorf("row %d: engine %s, mode %s, threads %d; want %s, %s, %d", i, r.Engine, r.Mode, r.Threads, wantEngine, wantMode, threads[i%len(threads)])
		}
		if r.Queries != 200 || r.Algorithm == "" || r.QPS <= 0 || r.BlocksDecoded <= 0 ||
			r.MeanUS == nil || r.P50US == nil || r.P95US == nil || r.P99US == nil || r.PostingsScored == nil ||
			*r.P50US > *r.P95US || *r.P95US > *r.P99US {
			t.Errorf("row %d = %+v: want 200 queries, an algorithm, ordered percentiles and positive rates", i, r)
		}
		postings[r.Algorithm+"/"+r.Mode] = *r.PostingsScored
	}
	if !slices.ContainsFunc(out.Results, func(r cliQueryRow) bool { return r.Algorithm == "bitmap-cached" }) {
		t.Errorf("bench queries: no bitmap-cached row")
	}
	if postings["bmw/or"] >= postings["exhaustive/or"] || postings["and/and"] >= postings["exhaustive/and"] {
		t.Errorf("bench queries: postings scored %v; want bmw and DAAT AND below exhaustive", postings)
	}

	res = mustRun(t, "bench", "queries", "--index", idx, "--queries", "../../examples/queries.txt",
		"--mode", "andor", "--engine", "cpu", "--threads", "1", "--min-time", "1ms")
	if !strings.Contains(res.stdout, "and+maxscore") || !strings.Contains(res.stdout, "p99_us") {
		t.Errorf("bench queries --engine cpu printed %q, want a table naming and+maxscore", res.stdout)
	}

	for _, args := range [][]string{
		{"bench", "queries", "--index", idx},
		{"bench", "queries", "--index", idx, "--queries", "../../examples/queries.txt", "--mode", "xor"},
		{"bench", "queries", "--index", idx, "--queries", "../../examples/queries.txt", "--engine", "nosuch"},
		{"bench", "queries", "--index", idx, "--queries", "../../examples/queries.txt", "--k", "0"},
	} {
		if r := runCLI(t, args...); r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("gpusearch %v: exit %d, stderr %q; want 2 and one line", args, r.code, r.stderr)
		}
	}
}

func TestCLIBenchIntersect(t *testing.T) {
	res := mustRun(t, "bench", "intersect", "--max-len", "10000", "--min-time", "1ms", "--json")
	var out struct {
		Results []struct {
			Lengths   []int   `json:"lengths"`
			Ratio     int     `json:"ratio"`
			Algorithm string  `json:"algorithm"`
			NsPerElem float64 `json:"ns_per_elem"`
			Result    int     `json:"result"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("bench intersect --json printed %q: %v", res.stdout, err)
	}
	// Shortest 100: ratios 1, 10, 100; 1,000: 1, 10; 10,000: 1. Pairs and
	// triples of each, every algorithm.
	if want := 6 * 2 * len(intersectAlgorithms); len(out.Results) != want {
		t.Fatalf("bench intersect: %d rows, want %d", len(out.Results), want)
	}
	results := map[string]int{}
	for _, r := range out.Results {
		shape := fmt.Sprint(r.Lengths)
		if n, ok := results[shape]; ok && n != r.Result {
			t.Errorf("bench intersect %v: %s found %d docids, another algorithm %d", r.Lengths, r.Algorithm, r.Result, n)
		}
		results[shape] = r.Result
		if r.NsPerElem <= 0 || len(r.Lengths) < 2 || r.Lengths[0] > r.Lengths[1] {
			t.Errorf("bench intersect row %+v: want a positive time and the shortest list first", r)
		}
	}
	if r := runCLI(t, "bench", "intersect", "--max-len", "10"); r.code != 2 {
		t.Errorf("bench intersect --max-len 10: exit %d, want 2", r.code)
	}
	if r := runCLI(t, "bench", "intersect", "--engine", "tpu"); r.code != 2 {
		t.Errorf("bench intersect --engine tpu: exit %d, want 2", r.code)
	}
}

func TestRandomSortedList(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tt := range []struct {
		n        int
		universe uint32
	}{{100, 400}, {10_000, 40_000}, {1000, 1000}, {5000, 1 << 30}} {
		l := randomSortedList(rng, tt.n, tt.universe)
		if len(l) < tt.n*8/10 || len(l) > tt.n*12/10 {
			t.Errorf("randomSortedList(%d, %d): %d docids, want about %d", tt.n, tt.universe, len(l), tt.n)
		}
		for i, d := range l {
			if d >= tt.universe || (i > 0 && d <= l[i-1]) {
				t.Fatalf("randomSortedList(%d, %d)[%d] = %d: out of order or range", tt.n, tt.universe, i, d)
			}
		}
	}
}

func TestPercentile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	tests := []struct {
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{nil, 0.5, 0},
		{ms(7), 0.99, 7 * time.Millisecond},
		{ms(1, 2, 3, 4), 0.5, 2 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 0.95, 10 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 0.5, 5 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
		}
	}
}
