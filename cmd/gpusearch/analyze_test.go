package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
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

// TestAnalyzeRepeatCollects checks that analyze --repeat collects garbage
// before each timed run, so that no run's timing includes a collection or
// fresh pages that another run's does not. The runtime's GC trace counts
// the cycles: this corpus is far too small to start one by itself (and a
// cycle that runtime.GC joins is not marked forced, so all are counted).
func TestAnalyzeRepeatCollects(t *testing.T) {
	crawl := t.TempDir()
	if err := os.WriteFile(filepath.Join(crawl, "a.txt"), []byte("one two two three three three"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "corpus")
	mustRun(t, "compress", "--raw", "--out", out, crawl)
	// --quiet: the runtime writes its trace in pieces, which timing lines
	// would split. Four runs, of which the first three collections' lines
	// are complete before the next starts (the last may be cut by the exit).
	cmd := cliCommand(t, "analyze", "--task", "wordcount", "--repeat", "4", "--discard", "--quiet", out)
	cmd.Env = append(cmd.Env, "GODEBUG=gctrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("analyze --repeat 4: %v\n%s", err, stderr.String())
	}
	if n := len(regexp.MustCompile(`(?m)^gc \d+ @`).FindAllString(stderr.String(), -1)); n < 3 {
		t.Errorf("analyze --repeat 4 ran %d complete collections, want at least 3 (one before each run)\n%s", n, stderr.String())
	}
}
