package eval

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Metrics are one query's measures (see the package doc for definitions).
type Metrics struct {
	AP                float64 `json:"map"`
	RR                float64 `json:"mrr"`
	P10               float64 `json:"p10"`
	NDCG10            float64 `json:"ndcg10"`
	Recall100         float64 `json:"recall100"`
	Relevant          int     `json:"relevant"`           // relevant documents in the qrels
	Retrieved         int     `json:"retrieved"`          // results considered
	RelevantRetrieved int     `json:"relevant_retrieved"` // relevant documents among them
}

// Summary is a run's evaluation: the means over the evaluated queries and
// each query's measures.
type Summary struct {
	Queries   int                `json:"queries"` // queries averaged
	MAP       float64            `json:"map"`
	MRR       float64            `json:"mrr"`
	P10       float64            `json:"p10"`
	NDCG10    float64            `json:"ndcg10"`
	Recall100 float64            `json:"recall100"`
	Missing   int                `json:"missing"` // averaged queries with no result in the run
	Ignored   int                `json:"ignored"` // run queries without a relevant document
	PerQuery  map[string]Metrics `json:"per_query"`
}

// Options tune Evaluate.
type Options struct {
	Depth int // results kept per query after sorting; 0 keeps all (trec_eval -M)
}

// ErrNoRelevant is returned when no query of the qrels has a relevant
// document, so no mean exists.
var ErrNoRelevant = errors.New("eval: no query in the qrels has a relevant document")

// Evaluate scores run against qrels.
func Evaluate(qrels Qrels, run Run, opts Options) (Summary, error) {
	s := Summary{PerQuery: map[string]Metrics{}}
	for qid, judged := range qrels {
		if qrels.NumRelevant(qid) == 0 {
			continue
		}
		results, ok := run[qid]
		if !ok {
			s.Missing++
		}
		m, err := evalQuery(judged, results, opts.Depth)
		if err != nil {
			return Summary{}, fmt.Errorf("eval: query %s: %w", qid, err)
		}
		s.PerQuery[qid] = m
		s.MAP += m.AP
		s.MRR += m.RR
		s.P10 += m.P10
		s.NDCG10 += m.NDCG10
		s.Recall100 += m.Recall100
	}
	for qid := range run {
		if _, ok := s.PerQuery[qid]; !ok {
			s.Ignored++
		}
	}
	s.Queries = len(s.PerQuery)
	if s.Queries == 0 {
		return Summary{}, ErrNoRelevant
	}
	n := float64(s.Queries)
	s.MAP /= n
	s.MRR /= n
	s.P10 /= n
	s.NDCG10 /= n
	s.Recall100 /= n
	return s, nil
}

// evalQuery computes one query's measures; judged holds its qrels, which
// have at least one relevant document.
func evalQuery(judged map[string]int, results []Result, depth int) (Metrics, error) {
	seen := make(map[string]bool, len(results))
	for _, r := range results {
		if seen[r.DocNo] {
			return Metrics{}, fmt.Errorf("document %s retrieved twice", r.DocNo)
		}
		seen[r.DocNo] = true
	}
	ranked := slices.Clone(results)
	slices.SortFunc(ranked, trecOrder)
	if depth > 0 && len(ranked) > depth {
		ranked = ranked[:depth]
	}

	var m Metrics
	var levels []int
	for _, rel := range judged {
		if rel > 0 {
			levels = append(levels, rel)
		}
	}
	m.Relevant = len(levels)
	m.Retrieved = len(ranked)
	var sumPrec, dcg float64
	var at10, at100 int
	for i, r := range ranked {
		rank := i + 1
		rel := judged[r.DocNo]
		if rel <= 0 {
			continue
		}
		m.RelevantRetrieved++
		sumPrec += float64(m.RelevantRetrieved) / float64(rank)
		if m.RR == 0 {
			m.RR = 1 / float64(rank)
		}
		if rank <= 10 {
			at10++
			dcg += float64(rel) / math.Log2(float64(rank+1))
		}
		if rank <= 100 {
			at100++
		}
	}
	m.AP = sumPrec / float64(m.Relevant)
	m.P10 = float64(at10) / 10
	m.Recall100 = float64(at100) / float64(m.Relevant)

	slices.SortFunc(levels, func(a, b int) int { return b - a })
	var idcg float64
	for i, rel := range levels[:min(10, len(levels))] {
		idcg += float64(rel) / math.Log2(float64(i+2))
	}
	m.NDCG10 = dcg / idcg
	return m, nil
}

// trecOrder is trec_eval's ranking: score descending, then docno
// descending.
func trecOrder(a, b Result) int {
	switch {
	case a.Score > b.Score:
		return -1
	case a.Score < b.Score:
		return 1
	}
	return strings.Compare(b.DocNo, a.DocNo)
}
