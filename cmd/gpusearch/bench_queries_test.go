package main

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
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
