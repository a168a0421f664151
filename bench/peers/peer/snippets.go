package peer

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/bench/latency"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/snippet"
)

// SnippetReport is what snippets cost beside the search they follow, in
// microseconds of wall-clock time on one locked thread (the thread CPU
// clock costs about a microsecond a read, too much to time each hit; the
// wall clock costs about 60 ns). A hit's snippet is
// fetching the document's stored text (Index.Document) and cutting it
// (snippet.Maker.Make), with one Maker a query as the server makes them; a
// request is the search to top k followed by its hits' snippets. Share is
// the snippets' part of the requests' total time (the sum over requests of
// the snippets' time over the sum of the requests' time).
type SnippetReport struct {
	Index       string  `json:"index"`
	Queries     int     `json:"queries"`
	Mode        string  `json:"mode"`
	K           int     `json:"k"`
	Passes      int     `json:"timed_passes"`
	Hits        int     `json:"hits"` // snippets cut, over the timed passes
	HitP50US    float64 `json:"hit_p50_us"`
	HitP99US    float64 `json:"hit_p99_us"`
	FetchP50US  float64 `json:"fetch_p50_us"`
	CutP50US    float64 `json:"cut_p50_us"`
	SearchP50US float64 `json:"search_p50_us"`
	// RequestP50US is the p50 of search plus snippets; SnippetsP50US the
	// p50 of a request's snippets alone.
	RequestP50US  float64 `json:"request_p50_us"`
	SnippetsP50US float64 `json:"snippets_p50_us"`
	Share         float64 `json:"share"`
	Machine       Machine `json:"machine"`
}

// Snippets measures snippet cost over the index in dir, which must store
// text: every query in mode to depth k through the CPU engine, warmup
// untimed passes and then repeat timed ones, on one thread. Double quotes in
// the queries are dropped, as in the and and or runs of Bench.
func Snippets(ctx context.Context, dir string, queries []string, mode query.Mode, k, warmup, repeat int) (*SnippetReport, error) {
	ix, err := index.Open(dir)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if ix.Store() != "text" {
		return nil, fmt.Errorf("peer: %s stores %s, not text: no snippets to measure", dir, ix.Store())
	}
	eng, err := query.New(ix, "cpu")
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a := analysis.New()
	var search, request, snips, hit, fetch, cut []time.Duration
	repeat = max(repeat, 1)
	for pass := range warmup + repeat {
		timed := pass >= warmup
		for _, text := range queries {
			c0 := time.Now()
			q, err := query.Parse(a, unquote(text), mode, k)
			if err != nil {
				return nil, err
			}
			res, err := eng.Search(ctx, q)
			if err != nil {
				return nil, err
			}
			c1 := time.Now()
			m := snippet.New(snippet.Query{Terms: q.Terms, Phrases: q.Phrases}, 0)
			for _, h := range res.Hits {
				t0 := time.Now()
				d, err := ix.Document(h.DocID, true)
				if err != nil {
					return nil, err
				}
				t1 := time.Now()
				m.Make(a, d.Text)
				t2 := time.Now()
				if timed {
					hit, fetch, cut = append(hit, t2.Sub(t0)), append(fetch, t1.Sub(t0)), append(cut, t2.Sub(t1))
				}
			}
			c2 := time.Now()
			if timed {
				search, snips, request = append(search, c1.Sub(c0)), append(snips, c2.Sub(c1)), append(request, c2.Sub(c0))
			}
		}
	}
	rep := &SnippetReport{Index: dir, Queries: len(queries), Mode: string(mode), K: k, Passes: repeat, Hits: len(hit), Machine: ThisMachine()}
	if len(hit) > 0 {
		h := latency.Summarize(slices.Clone(hit))
		rep.HitP50US, rep.HitP99US = h.P50US, h.P99US
		rep.FetchP50US = latency.US(latency.Median(fetch))
		rep.CutP50US = latency.US(latency.Median(cut))
	}
	rep.SearchP50US = latency.US(latency.Median(search))
	rep.RequestP50US = latency.US(latency.Median(request))
	rep.SnippetsP50US = latency.US(latency.Median(snips))
	var s, r time.Duration
	for i := range request {
		s, r = s+snips[i], r+request[i]
	}
	if r > 0 {
		rep.Share = float64(s) / float64(r)
	}
	return rep, nil
}
