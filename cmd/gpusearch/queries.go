package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// queryLine is one line of a queries file: `qid<TAB>text`, or plain text
// whose qid is its line number.
type queryLine struct {
	ID   string
	Text string
}

// readQueries reads a queries file, skipping blank lines.
func readQueries(path string) ([]queryLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []queryLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		id, text, ok := strings.Cut(line, "\t")
		if !ok {
			id, text = strconv.Itoa(n), line
		}
		out = append(out, queryLine{ID: strings.TrimSpace(id), Text: strings.TrimSpace(text)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no queries", path)
	}
	return out, nil
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
