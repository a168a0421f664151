package peer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Harness is an engine in another process that speaks the harness protocol
// (see the package doc). Command is the program and its leading arguments;
// the protocol's arguments follow them.
type Harness struct {
	EngineName string
	Command    []string
	Desc       Info // Version is filled in from the harness's index answer
	Titles     bool // index takes the corpus's titles file as a third argument

	indexDir string
	docs     int
}

// Name returns the engine's name.
func (h *Harness) Name() string { return h.EngineName }

// Info describes the engine.
func (h *Harness) Info() Info { return h.Desc }

// Close does nothing: the harness process ends after each step.
func (h *Harness) Close() error { return nil }

// Index runs "index CORPUS DIR", or "index CORPUS DIR TITLES" when h.Titles.
func (h *Harness) Index(ctx context.Context, c *Corpus, dir string) (time.Duration, error) {
	args := []string{"index", c.TSV, dir}
	if h.Titles {
		args = append(args, c.TitlesFile)
	}
	out, err := h.run(ctx, args...)
	if err != nil {
		return 0, err
	}
	var ans struct {
		Version string `json:"version"`
		Docs    int    `json:"docs"`
		IndexNS int64  `json:"index_ns"`
	}
	if err := json.Unmarshal(out, &ans); err != nil {
		return 0, fmt.Errorf("peer: %s index answered %q: %w", h.EngineName, out, err)
	}
	if ans.Docs != c.Len() {
		return 0, fmt.Errorf("peer: %s indexed %d documents, want %d", h.EngineName, ans.Docs, c.Len())
	}
	h.Desc.Version = ans.Version
	h.indexDir, h.docs = dir, ans.Docs
	return time.Duration(ans.IndexNS), nil
}

// Search runs "search DIR QUERIES OUTDIR WARMUP KEEP MODE:K..." and reads
// the hits back.
func (h *Harness) Search(ctx context.Context, queries []string, specs []Spec, opts SearchOptions) ([]Run, error) {
	if h.indexDir == "" {
		return nil, fmt.Errorf("peer: %s: Search before Index", h.EngineName)
	}
	tmp, err := os.MkdirTemp("", "peer-"+h.EngineName+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	qfile := filepath.Join(tmp, "queries.txt")
	if err := writeLines(qfile, queries); err != nil {
		return nil, err
	}
	repeat := max(opts.Repeat, 1)
	args := []string{"search", h.indexDir, qfile, tmp, strconv.Itoa(opts.Warmup), strconv.Itoa(repeat), strconv.Itoa(opts.Keep)}
	for _, s := range specs {
		args = append(args, s.String())
	}
	out, err := h.run(ctx, args...)
	if err != nil {
		return nil, err
	}
	var ans struct {
		Runs []struct {
			Mode   string  `json:"mode"`
			K      int     `json:"k"`
			WallNS []int64 `json:"wall_ns"`
			CPUNS  []int64 `json:"cpu_ns"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out, &ans); err != nil {
		return nil, fmt.Errorf("peer: %s search answered %.200q: %w", h.EngineName, out, err)
	}
	if len(ans.Runs) != len(specs) {
		return nil, fmt.Errorf("peer: %s answered %d runs, want %d", h.EngineName, len(ans.Runs), len(specs))
	}
	runs := make([]Run, len(specs))
	for i, s := range specs {
		a := ans.Runs[i]
		if a.Mode != s.Mode || a.K != s.K || len(a.WallNS) != repeat*len(queries) || len(a.CPUNS) != len(a.WallNS) {
			return nil, fmt.Errorf("peer: %s run %d is %s:%d with %d and %d times, want %s with %d",
				h.EngineName, i, a.Mode, a.K, len(a.WallNS), len(a.CPUNS), s, repeat*len(queries))
		}
		hits, err := readHits(filepath.Join(tmp, fmt.Sprintf("%s-%d.hits", s.Mode, s.K)), len(queries), h.docs)
		if err != nil {
			return nil, fmt.Errorf("peer: %s: %w", h.EngineName, err)
		}
		runs[i] = Run{Spec: s, Wall: durations(a.WallNS), CPU: durations(a.CPUNS), Hits: hits}
	}
	return runs, nil
}

func durations(ns []int64) []time.Duration {
	d := make([]time.Duration, len(ns))
	for i, v := range ns {
		d[i] = time.Duration(v)
	}
	return d
}

// run runs the harness with args and returns its standard output; its
// standard error goes to ours, so that a failure explains itself.
func (h *Harness) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, h.Command[0], append(h.Command[1:len(h.Command):len(h.Command)], args...)...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("peer: %s %s: %w", h.EngineName, args[0], err)
	}
	return bytes.TrimSpace(stdout.Bytes()), nil
}

// readHits reads a hits file: n lines of "id score" pairs, ids below docs.
func readHits(path string, n, docs int) ([][]Hit, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	var hits [][]Hit
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields)%2 != 0 {
			return nil, fmt.Errorf("%s:%d: odd number of fields", path, len(hits)+1)
		}
		line := make([]Hit, 0, len(fields)/2)
		for i := 0; i < len(fields); i += 2 {
			id, err1 := strconv.Atoi(fields[i])
			score, err2 := strconv.ParseFloat(fields[i+1], 64)
			if err1 != nil || err2 != nil || id < 0 || id >= docs {
				return nil, fmt.Errorf("%s:%d: bad hit %q %q", path, len(hits)+1, fields[i], fields[i+1])
			}
			line = append(line, Hit{Doc: id, Score: score})
		}
		hits = append(hits, line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(hits) != n {
		return nil, fmt.Errorf("%s: %d lines, want %d", path, len(hits), n)
	}
	return hits, nil
}
