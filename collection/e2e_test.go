package collection

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	_ "github.com/gpusearch/gpusearch/codecplugins/all" // indexes name their codecs
	"github.com/gpusearch/gpusearch/eval"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/query"
)

// TestEndToEnd converts each collection, indexes it, answers every query
// with the CPU engine in OR mode (k = 1000), writes a TREC run, reads it
// back and evaluates it. The bounds sit a little below the figures
// measured when the test was written (docs/relevance.md), so a change in
// analysis, ranking or the run and qrels plumbing that costs relevance
// fails here.
func TestEndToEnd(t *testing.T) {
	tests := []struct {
		name      string
		queries   int     // evaluated queries
		minMAP    float64 // measured: Cranfield 0.2891, CACM 0.2646
		minNDCG10 float64 // measured: Cranfield 0.3500, CACM 0.4072
	}{
		{"cranfield", 225, 0.27, 0.33},
		{"cacm", 52, 0.25, 0.39},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, dir := converted(t, tt.name)
			s := searchAndEvaluate(t, dir)
			t.Logf("%s: %d queries, MAP %.4f, MRR %.4f, P@10 %.4f, nDCG@10 %.4f, recall@100 %.4f",
				tt.name, s.Queries, s.MAP, s.MRR, s.P10, s.NDCG10, s.Recall100)
			if s.Queries != tt.queries || s.Missing != 0 || s.Ignored != len(c.Queries)-tt.queries {
				t.Errorf("Evaluate: %d queries, %d missing, %d ignored, want %d, 0, %d",
					s.Queries, s.Missing, s.Ignored, tt.queries, len(c.Queries)-tt.queries)
			}
			if s.MAP < tt.minMAP || s.NDCG10 < tt.minNDCG10 {
				t.Errorf("Evaluate: MAP %.4f, nDCG@10 %.4f, want at least %.2f and %.2f", s.MAP, s.NDCG10, tt.minMAP, tt.minNDCG10)
			}
		})
	}
}

// searchAndEvaluate indexes dir/crawl, runs dir/queries.txt in OR mode
// with k = 1000 and scores the run against dir/qrels.txt.
func searchAndEvaluate(t *testing.T, dir string) eval.Summary {
	t.Helper()
	ctx := context.Background()
	ixDir := filepath.Join(t.TempDir(), "index")
	if _, err := indexer.Build(ctx, filepath.Join(dir, "crawl"), ixDir, indexer.Options{}); err != nil {
		t.Fatalf("indexer.Build: %v", err)
	}
	ix, err := index.Open(ixDir)
	if err != nil {
		t.Fatalf("index.Open: %v", err)
	}
	defer ix.Close()
	eng, err := query.New(ix, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	qf, err := os.Open(filepath.Join(dir, "queries.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer qf.Close()
	qs, err := eval.ReadQueries(qf)
	if err != nil {
		t.Fatalf("ReadQueries: %v", err)
	}
	a := analysis.New()
	search := func(ctx context.Context, text string) ([]query.Hit, error) {
		q, err := query.Parse(a, text, query.Or, eval.MaxRunDepth)
		if err != nil {
			return nil, err
		}
		res, err := eng.Search(ctx, q)
		return res.Hits, err
	}
	docno := func(id uint32) string { return eval.DocNo(ix.URL(id)) }
	var run bytes.Buffer
	if err := eval.RunQueries(ctx, &run, qs, search, docno, "e2e"); err != nil {
		t.Fatalf("RunQueries: %v", err)
	}
	r, err := eval.ReadRun(&run)
	if err != nil {
		t.Fatalf("ReadRun: %v", err)
	}
	qrf, err := os.Open(filepath.Join(dir, "qrels.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer qrf.Close()
	qrels, err := eval.ReadQrels(qrf)
	if err != nil {
		t.Fatalf("ReadQrels: %v", err)
	}
	s, err := eval.Evaluate(qrels, r, eval.Options{})
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	return s
}
