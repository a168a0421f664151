// Package args reads what the bench harnesses' command lines name:
// queries files, and comma-separated lists of names, query modes and
// scheduling policies. Its errors are the caller's to report as usage
// errors, but for those of reading a file.
package args

import (
	"fmt"
	"os"
	"strings"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/eval"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

// OpenFunc opens the engine of the registry named name over ix, as the
// command line does (its GPU settings, "auto" for the CPU engine); the
// returned func releases it.
type OpenFunc func(ix *index.Index, name string) (query.Engine, func(), error)

// ReadQueries reads a queries file (one query per line, optionally
// `qid<TAB>text`; see eval.ReadQueries) and refuses an empty one.
func ReadQueries(path string) ([]eval.Query, error) {
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

// Texts reads a queries file as ReadQueries does and keeps the texts.
func Texts(path string) ([]string, error) {
	lines, err := ReadQueries(path)
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(lines))
	for i, l := range lines {
		texts[i] = l.Text
	}
	return texts, nil
}

// List splits a comma-separated flag value, dropping empty items.
func List(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Modes parses a comma-separated list of query modes; an unknown mode
// or an empty list is an error.
func Modes(list string) ([]query.Mode, error) {
	var modes []query.Mode
	for _, name := range List(list) {
		m, err := query.ParseMode(name)
		if err != nil {
			return nil, err
		}
		modes = append(modes, m)
	}
	if len(modes) == 0 {
		return nil, fmt.Errorf("no query mode given")
	}
	return modes, nil
}

// Policies parses a comma-separated list of scheduling policies.
func Policies(list string) ([]schedule.Policy, error) {
	var policies []schedule.Policy
	for _, p := range List(list) {
		pol, err := schedule.ParsePolicy(p)
		if err != nil {
			return nil, err
		}
		policies = append(policies, pol)
	}
	return policies, nil
}

// InEveryMode analyses each line once per mode, interleaved (line 1 in
// every mode, then line 2, ...), so that bench fit and bench load see
// every mode throughout the file. A line query.Parse refuses (unbalanced
// quotes) is an error naming its qid.
func InEveryMode(lines []eval.Query, modes []query.Mode, k int) ([]query.Query, error) {
	a := analysis.New()
	qs := make([]query.Query, 0, len(lines)*len(modes))
	for _, l := range lines {
		for _, m := range modes {
			q, err := query.Parse(a, l.Text, m, k)
			if err != nil {
				return nil, fmt.Errorf("query %s: %w", l.ID, err)
			}
			qs = append(qs, q)
		}
	}
	return qs, nil
}
