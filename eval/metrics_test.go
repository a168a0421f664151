package eval

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// ranked builds a run for one query from docnos in rank order, with
// strictly decreasing scores.
func ranked(docnos ...string) []Result {
	rs := make([]Result, len(docnos))
	for i, d := range docnos {
		rs[i] = Result{DocNo: d, Rank: i + 1, Score: float64(len(docnos) - i)}
	}
	return rs
}

// fillers returns n docnos that no qrels judge.
func fillers(n int) []string {
	d := make([]string, n)
	for i := range d {
		d[i] = fmt.Sprintf("x%d", i)
	}
	return d
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestEvalQuery(t *testing.T) {
	// judged: r1 and r4 at level 1, r2 at level 2, n3 judged not relevant.
	judged := map[string]int{"r1": 1, "r2": 2, "n3": 0, "r4": 1}
	lg := math.Log2
	tests := []struct {
		name    string
		judged  map[string]int
		results []Result
		depth   int
		want    Metrics
	}{
		{
			// ranks: n3 (0), r1 (1), unjudged, r2 (2); r4 never retrieved.
			name:    "mixed",
			judged:  judged,
			results: ranked("n3", "r1", "u", "r2"),
			want: Metrics{
				AP:        (1.0/2 + 2.0/4) / 3,
				RR:        1.0 / 2,
				P10:       2.0 / 10,
				NDCG10:    (1/lg(3) + 2/lg(5)) / (2/lg(2) + 1/lg(3) + 1/lg(4)),
				Recall100: 2.0 / 3,
				Relevant:  3, Retrieved: 4, RelevantRetrieved: 2,
			},
		},
		{
			name:    "ideal",
			judged:  judged,
			results: ranked("r2", "r1", "r4", "n3"),
			want: Metrics{
				AP: 1, RR: 1, P10: 3.0 / 10, NDCG10: 1, Recall100: 1,
				Relevant: 3, Retrieved: 4, RelevantRetrieved: 3,
			},
		},
		{
			name:    "nothing retrieved",
			judged:  judged,
			results: nil,
			want:    Metrics{Relevant: 3},
		},
		{
			name:    "only non-relevant",
			judged:  judged,
			results: ranked("n3", "u"),
			want:    Metrics{Relevant: 3, Retrieved: 2},
		},
		{
			// Equal scores: trec_eval puts the larger docno first and
			// ignores the rank column.
			name:    "tie broken by docno descending",
			judged:  map[string]int{"a": 1},
			results: []Result{{DocNo: "a", Rank: 1, Score: 7}, {DocNo: "b", Rank: 2, Score: 7}},
			want: Metrics{
				AP: 1.0 / 2, RR: 1.0 / 2, P10: 1.0 / 10, NDCG10: 1 / lg(3), Recall100: 1,
				Relevant: 1, Retrieved: 2, RelevantRetrieved: 1,
			},
		},
		{
			name:    "sorted by score not by rank",
			judged:  map[string]int{"a": 1},
			results: []Result{{DocNo: "b", Rank: 1, Score: 1}, {DocNo: "a", Rank: 2, Score: 2}},
			want: Metrics{
				AP: 1, RR: 1, P10: 1.0 / 10, NDCG10: 1, Recall100: 1,
				Relevant: 1, Retrieved: 2, RelevantRetrieved: 1,
			},
		},
		{
			name:    "relevant at rank 11",
			judged:  map[string]int{"a": 3},
			results: ranked(append(fillers(10), "a")...),
			want: Metrics{
				AP: 1.0 / 11, RR: 1.0 / 11, Recall100: 1,
				Relevant: 1, Retrieved: 11, RelevantRetrieved: 1,
			},
		},
		{
			name:    "depth cuts before measuring",
			judged:  map[string]int{"a": 3},
			results: ranked(append(fillers(10), "a")...),
			depth:   10,
			want:    Metrics{Relevant: 1, Retrieved: 10},
		},
		{
			name:    "relevant at rank 101",
			judged:  map[string]int{"a": 1, "b": 1},
			results: ranked(append(append([]string{"b"}, fillers(99)...), "a")...),
			want: Metrics{
				AP: (1 + 2.0/101) / 2, RR: 1, P10: 1.0 / 10, NDCG10: 1 / (1 + 1/lg(3)), Recall100: 1.0 / 2,
				Relevant: 2, Retrieved: 101, RelevantRetrieved: 2,
			},
		},
		{
			// More than ten relevant documents: the ideal DCG stops at ten,
			// with the highest levels first.
			name: "ideal cut at ten",
			judged: map[string]int{"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1,
				"g": 1, "h": 1, "i": 1, "j": 1, "k": 1, "top": 4},
			results: ranked("top"),
			want: Metrics{
				AP: 1.0 / 12, RR: 1, P10: 1.0 / 10,
				NDCG10:    4 / (4 + 1/lg(3) + 1/lg(4) + 1/lg(5) + 1/lg(6) + 1/lg(7) + 1/lg(8) + 1/lg(9) + 1/lg(10) + 1/lg(11)),
				Recall100: 1.0 / 12,
				Relevant:  12, Retrieved: 1, RelevantRetrieved: 1,
			},
		},
		{
			name:    "negative level is not relevant",
			judged:  map[string]int{"a": 1, "neg": -1},
			results: ranked("neg", "a"),
			want: Metrics{
				AP: 1.0 / 2, RR: 1.0 / 2, P10: 1.0 / 10, NDCG10: 1 / lg(3), Recall100: 1,
				Relevant: 1, Retrieved: 2, RelevantRetrieved: 1,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := evalQuery(tt.judged, tt.results, tt.depth)
			if err != nil {
				t.Fatalf("evalQuery: %v", err)
			}
			w := tt.want
			if !near(got.AP, w.AP) || !near(got.RR, w.RR) || !near(got.P10, w.P10) ||
				!near(got.NDCG10, w.NDCG10) || !near(got.Recall100, w.Recall100) ||
				got.Relevant != w.Relevant || got.Retrieved != w.Retrieved || got.RelevantRetrieved != w.RelevantRetrieved {
				t.Errorf("evalQuery(%v) = %+v, want %+v", tt.results, got, w)
			}
		})
	}
}

func TestEvaluate(t *testing.T) {
	qrels := Qrels{}
	qrels.Add("1", "a", 1)
	qrels.Add("1", "b", 0)
	qrels.Add("2", "a", 0) // judged, nothing relevant: ignored
	qrels.Add("3", "c", 2) // relevant but absent from the run: scores 0
	run := Run{
		"1": ranked("b", "a"),
		"2": ranked("a"),
		"4": ranked("a"), // not judged: ignored
	}
	s, err := Evaluate(qrels, run, Options{})
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	if s.Queries != 2 || s.Missing != 1 || s.Ignored != 2 {
		t.Errorf("Evaluate: queries, missing, ignored = %d, %d, %d, want 2, 1, 2", s.Queries, s.Missing, s.Ignored)
	}
	wantAP1 := 1.0 / 2
	if !near(s.MAP, wantAP1/2) || !near(s.MRR, wantAP1/2) || !near(s.P10, 0.1/2) || !near(s.Recall100, 1.0/2) ||
		!near(s.NDCG10, 1/math.Log2(3)/2) {
		t.Errorf("Evaluate means = %+v, want map %v mrr %v p10 %v ndcg10 %v recall100 %v",
			s, wantAP1/2, wantAP1/2, 0.05, 1/math.Log2(3)/2, 0.5)
	}
	if _, ok := s.PerQuery["3"]; !ok || len(s.PerQuery) != 2 {
		t.Errorf("Evaluate per-query keys = %v, want 1 and 3", s.PerQuery)
	}
	if got := s.PerQuery["3"]; got.AP != 0 || got.Relevant != 1 {
		t.Errorf("Evaluate per-query[3] = %+v, want AP 0, Relevant 1", got)
	}
}

func TestEvaluateErrors(t *testing.T) {
	qrels := Qrels{}
	qrels.Add("1", "a", 1)
	tests := []struct {
		name  string
		qrels Qrels
		run   Run
	}{
		{"duplicate document", qrels, Run{"1": {{DocNo: "a", Score: 2}, {DocNo: "b", Score: 1}, {DocNo: "a", Score: 0}}}},
		{"no relevant document", Qrels{"1": {"a": 0}}, Run{"1": ranked("a")}},
		{"empty qrels", Qrels{}, Run{"1": ranked("a")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if s, err := Evaluate(tt.qrels, tt.run, Options{}); err == nil {
				t.Errorf("Evaluate(%v, %v) = %+v, want an error", tt.qrels, tt.run, s)
			}
		})
	}
	if _, err := Evaluate(Qrels{"1": {"a": 0}}, Run{}, Options{}); !errors.Is(err, ErrNoRelevant) {
		t.Errorf("Evaluate without relevant documents: error %v, want ErrNoRelevant", err)
	}
}
