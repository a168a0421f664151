package schedule

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

// phraseRefuser stands in for the GPU engine: it declines phrases as the
// gpu engine does.
type phraseRefuser struct{ batchEngine }

func (p *phraseRefuser) SearchBatch(ctx context.Context, qs []query.Query) ([]query.Result, error) {
	for _, q := range qs {
		if len(q.Phrases) > 0 {
			return nil, fmt.Errorf("fake gpu: %w", query.ErrPhraseUnsupported)
		}
	}
	return p.batchEngine.SearchBatch(ctx, qs)
}

func (p *phraseRefuser) Search(ctx context.Context, q query.Query) (query.Result, error) {
	rs, err := p.SearchBatch(ctx, []query.Query{q})
	if err != nil {
		return query.Result{}, err
	}
	return rs[0], nil
}

// TestPhrasesRunOnTheCPU sends phrase queries through schedulers whose
// policies would put them on the GPU: each is answered by the CPU engine.
func TestPhrasesRunOnTheCPU(t *testing.T) {
	// Documents "a b", "b a", "a b a": positions 0, 1, 2.
	ix := testindex.Write(t, index.WriterOptions{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Positions: true},
		[]uint32{2, 2, 3}, []string{"d0", "d1", "d2"},
		testindex.Postings{Term: "a", DocIDs: []uint32{0, 1, 2}, Freqs: []uint32{1, 1, 2}, Positions: []uint32{0, 1, 0, 2}},
		testindex.Postings{Term: "b", DocIDs: []uint32{0, 1, 2}, Freqs: []uint32{1, 1, 1}, Positions: []uint32{1, 0, 1}})
	cpu, err := query.New(ix, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Policy{PolicyGPU, PolicyHybrid, PolicyBest} {
		fakeGPU := &phraseRefuser{batchEngine{Engine: query.NewExhaustive(ix)}}
		s, err := New(ix, Config{Policy: p, CPU: cpu, GPUs: []query.Engine{fakeGPU}, CPUWorkers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []query.Mode{query.And, query.Or} {
			q := query.Query{Terms: []string{"a", "b"}, Phrases: [][]string{{"a", "b"}}, Mode: mode, K: 10}
			res, err := s.Search(context.Background(), q)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			var got []uint32
			for _, h := range res.Hits {
				got = append(got, h.DocID)
			}
			if slices.Sort(got); !slices.Equal(got, []uint32{0, 2}) {
				t.Errorf("%s %s: hits %v, want documents 0 and 2", p, mode, res.Hits)
			}
			if !strings.HasPrefix(res.Stats.Algorithm, "cpu:") {
				t.Errorf("%s %s: answered by %q, want the CPU", p, mode, res.Stats.Algorithm)
			}
		}
		s.Close()
	}
}
