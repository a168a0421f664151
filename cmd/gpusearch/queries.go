package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/eval"
	"github.com/gpusearch/gpusearch/query"
)

// readQueries reads a queries file (one query per line, optionally
// `qid<TAB>text`; see eval.ReadQueries) and refuses an empty one.
func readQueries(path string) ([]eval.Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	qs, err := eval.ReadQueries(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%s: no queries", path)
	}
	return qs, nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseModes parses a comma-separated list of query modes; an unknown
// mode or an empty list is a usage error.
func parseModes(list string) ([]query.Mode, error) {
	var modes []query.Mode
	for _, name := range splitList(list) {
		m, err := query.ParseMode(name)
		if err != nil {
			return nil, usageError{err}
		}
		modes = append(modes, m)
	}
	if len(modes) == 0 {
		return nil, usagef("no query mode given")
	}
	return modes, nil
}

// inEveryMode analyses each line once per mode, interleaved (line 1 in
// every mode, then line 2, ...), so that bench fit and bench load see
// every mode throughout the file.
func inEveryMode(a *analysis.Analyzer, lines []eval.Query, modes []query.Mode, k int) []query.Query {
	qs := make([]query.Query, 0, len(lines)*len(modes))
	for _, l := range lines {
		for _, m := range modes {
			qs = append(qs, query.Parse(a, l.Text, m, k))
		}
	}
	return qs
}
