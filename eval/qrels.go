package eval

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Qrels are relevance judgments: query id -> docno -> relevance level.
type Qrels map[string]map[string]int

// Add records a judgment, replacing an earlier one for the same pair.
func (q Qrels) Add(qid, docno string, rel int) {
	m := q[qid]
	if m == nil {
		m = map[string]int{}
		q[qid] = m
	}
	m[docno] = rel
}

// NumRelevant returns how many documents are relevant (level > 0) to qid.
func (q Qrels) NumRelevant(qid string) int {
	n := 0
	for _, rel := range q[qid] {
		if rel > 0 {
			n++
		}
	}
	return n
}

// ReadQrels reads TREC qrels ("qid iter docno rel" lines).
func ReadQrels(r io.Reader) (Qrels, error) {
	q := Qrels{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			return nil, fmt.Errorf("eval: qrels line %d: %d fields, want 4 (qid iter docno rel)", line, len(f))
		}
		rel, err := strconv.Atoi(f[3])
		if err != nil {
			return nil, fmt.Errorf("eval: qrels line %d: relevance %q is not an integer", line, f[3])
		}
		if _, dup := q[f[0]][f[2]]; dup {
			return nil, fmt.Errorf("eval: qrels line %d: query %s judges document %s twice", line, f[0], f[2])
		}
		q.Add(f[0], f[2], rel)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: reading qrels: %w", err)
	}
	return q, nil
}

// Write writes the qrels in TREC format, queries in ID order (see
// CompareIDs), documents in docno order within a query.
func (q Qrels) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, qid := range sortedIDs(q) {
		if err := checkField("query id", qid); err != nil {
			return err
		}
		docs := q[qid]
		for _, d := range sortedIDs(docs) {
			if err := checkField("docno", d); err != nil {
				return err
			}
			fmt.Fprintf(bw, "%s 0 %s %d\n", qid, d, docs[d])
		}
	}
	return bw.Flush()
}

// CompareIDs orders query ids and docnos: two decimal numbers by value,
// anything else bytewise, numbers first.
func CompareIDs(a, b string) int {
	na, errA := strconv.ParseUint(a, 10, 64)
	nb, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA == nil && errB == nil && na != nb:
		if na < nb {
			return -1
		}
		return 1
	case errA == nil && errB != nil:
		return -1
	case errA != nil && errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// sortedIDs returns m's keys in CompareIDs order.
func sortedIDs[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, CompareIDs)
	return keys
}
