package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCLICompressAnalyze compresses a small crawl and checks that the
// analyze command's word counts on the compressed form, the plain
// baseline and the hand count agree, and that the GPU engine, absent from
// a build without CUDA, fails with a clear error.
func TestCLICompressAnalyze(t *testing.T) {
	crawl := t.TempDir()
	docs := map[string]string{
		"a.txt": "the cat sat on the mat the end",
		"b.txt": "a cat and a dog",
		"c.txt": "",
	}
	for name, text := range docs {
		if err := os.WriteFile(filepath.Join(crawl, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "corpus")
	mustRun(t, "compress", "--raw", "--out", out, crawl)
	want := map[string]uint64{}
	for _, text := range docs {
		for _, w := range strings.Fields(text) {
			want[w]++
		}
	}
	for _, args := range [][]string{
		{"analyze", "--task", "wordcount", "--json", out},
		{"analyze", "--task", "wordcount", "--plain", "--json", out},
		{"analyze", "--task", "wordcount", "--plain", "--text", "--json", out},
	} {
		res := mustRun(t, args...)
		var got struct {
			Counts map[string]uint64 `json:"counts"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
			t.Fatalf("%v printed %q: %v", args, res.stdout, err)
		}
		if !reflect.DeepEqual(got.Counts, want) {
			t.Errorf("%v: counts %v, want %v", args, got.Counts, want)
		}
	}
	if res := runCLI(t, "analyze", "--task", "wordcount", "--text", out); res.code != 2 || !strings.Contains(res.stderr, "--plain") {
		t.Errorf("analyze --text without --plain: exit %d, stderr %q; want a usage error naming --plain", res.code, res.stderr)
	}
	// Without a device (and in builds without CUDA) the GPU engine fails
	// with a clear error; with one it must count the same.
	for _, form := range []string{"--plain", "--text"} {
		args := []string{"analyze", "--task", "wordcount", "--engine", "gpu", "--plain", form, "--json", out}
		res := runCLI(t, args...)
		if res.code != 0 {
			if !strings.Contains(strings.ToLower(res.stderr), "cuda") && !strings.Contains(strings.ToLower(res.stderr), "gpu") {
				t.Errorf("%v: stderr %q, want it to name CUDA or the GPU", args, res.stderr)
			}
			continue
		}
		var got struct {
			Counts map[string]uint64 `json:"counts"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &got); err != nil || !reflect.DeepEqual(got.Counts, want) {
			t.Errorf("%v: %q (%v), want counts %v", args, res.stdout, err, want)
		}
	}
}
