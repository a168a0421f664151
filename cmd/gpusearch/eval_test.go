package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIRelevance converts the fake doc-rfc tree, indexes it, runs its
// queries file as a TREC run and scores it: every title finds its RFC
// first.
func TestCLIRelevance(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "convert-collection", "--format", "rfc", "--out", dir, "../../collection/testdata/doc-rfc")
	idx := filepath.Join(dir, "index")
	mustRun(t, "index", "--quiet", "--out", idx, filepath.Join(dir, "crawl"))

	run := mustRun(t, "search", "--index", idx, "--queries", filepath.Join(dir, "queries.txt"), "--mode", "or", "--tag", "t1")
	lines := strings.Split(strings.TrimSpace(run.stdout), "\n")
	if f := strings.Fields(lines[0]); len(f) != 6 || f[0] != "1" || f[1] != "Q0" || f[2] != "rfc1" || f[3] != "1" || f[5] != "t1" {
		t.Errorf("search --queries: first line %q, want \"1 Q0 rfc1 1 <score> t1\"", lines[0])
	}
	runFile := filepath.Join(dir, "run.txt")
	if err := os.WriteFile(runFile, []byte(run.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, "eval", "--json", "--qrels", filepath.Join(dir, "qrels.txt"), "--run", runFile)
	var s struct {
		Queries  int                        `json:"queries"`
		MRR      float64                    `json:"mrr"`
		PerQuery map[string]json.RawMessage `json:"per_query"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &s); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, res.stdout)
	}
	if s.Queries != 3 || s.MRR != 1 || len(s.PerQuery) != 3 {
		t.Errorf("eval --json = %d queries, MRR %v, %d per-query entries, want 3, 1, 3", s.Queries, s.MRR, len(s.PerQuery))
	}
	text := mustRun(t, "eval", "--qrels", filepath.Join(dir, "qrels.txt"), "--run", runFile)
	if !strings.Contains(text.stdout, "mrr        all      1.0000") {
		t.Errorf("eval: output %q lacks the MRR line", text.stdout)
	}

	one := mustRun(t, "search", "--index", idx, "--trec", "--qid", "q9", "--k", "1", "hypertext", "transfer")
	if f := strings.Fields(one.stdout); len(f) != 6 || f[0] != "q9" || f[2] != "rfc2" || f[5] != "gpusearch" {
		t.Errorf("search --trec: %q, want \"q9 Q0 rfc2 1 <score> gpusearch\"", one.stdout)
	}

	for _, args := range [][]string{
		{"search", "--index", idx},
		{"search", "--index", idx, "--queries", filepath.Join(dir, "queries.txt"), "extra"},
		{"search", "--index", idx, "--trec", "--json", "x"},
		{"eval", "--qrels", filepath.Join(dir, "qrels.txt")},
		{"convert-collection", "--format", "trec", "--out", dir, "src"},
	} {
		if res := runCLI(t, args...); res.code != 2 {
			t.Errorf("gpusearch %v: exit %d, want 2 (usage)", args, res.code)
		}
	}
	if res := runCLI(t, "convert-collection", "--format", "rfc", "--out", dir, "../../collection/testdata/doc-rfc"); res.code != 1 {
		t.Errorf("convert-collection into a used folder: exit %d, want 1", res.code)
	}
}
