package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/gpusearch/gpusearch/eval"
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
