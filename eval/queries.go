package eval

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Query is one line of a queries file.
type Query struct {
	ID   string
	Text string
}

// ReadQueries reads a queries file: "qid<TAB>text" lines, or "text" lines
// whose qid is the 1-based line number. Blank lines are skipped; a qid
// must be free of white space and used once.
func ReadQueries(r io.Reader) ([]Query, error) {
	var qs []Query
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		id := strconv.Itoa(line)
		if before, after, ok := strings.Cut(text, "\t"); ok {
			id, text = strings.TrimSpace(before), after
			if err := checkField("query id", id); err != nil {
				return nil, fmt.Errorf("eval: queries line %d: %w", line, err)
			}
		}
		if seen[id] {
			return nil, fmt.Errorf("eval: queries line %d: query id %s used twice", line, id)
		}
		seen[id] = true
		qs = append(qs, Query{ID: id, Text: text})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: reading queries: %w", err)
	}
	return qs, nil
}

// WriteQueries writes queries as "qid<TAB>text" lines; white space runs
// inside a text (newlines and tabs included) become one space.
func WriteQueries(w io.Writer, qs []Query) error {
	bw := bufio.NewWriter(w)
	for _, q := range qs {
		if err := checkField("query id", q.ID); err != nil {
			return err
		}
		bw.WriteString(q.ID)
		bw.WriteByte('\t')
		bw.WriteString(strings.Join(strings.Fields(q.Text), " "))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
