package peer

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/bench/latency"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/snippet"
)

// SnippetReport is what snippets cost beside the search they follow, in
// microseconds of wall-clock time on one locked thread, with Workers
// goroutines making a request's snippets (the thread CPU
// clock costs about a microsecond a read, too much to time each hit; the
// wall clock costs about 60 ns). Snippets are made as the server makes
// them, by api.Describe (titles, the postings' note of which terms each hit
// holds, each hit's stored text and its snippet). A request is the search
// to top k followed by Describe of its hits; Share is the snippets' part of
// the requests' total time (summed over requests). A hit's cost is
// Describe of that hit alone. Titles is Describe without snippets, as a
// request with snippets=0 has it, and Added a request's snippets less its
// titles: what snippets add to a request.
type SnippetReport struct {
	Index       string  `json:"index"`
	Queries     int     `json:"queries"`
	Mode        string  `json:"mode"`
	K           int     `json:"k"`
	Bytes       int     `json:"snippet_bytes"`
	Passes      int     `json:"timed_passes"`
	Workers     int     `json:"workers"` // Describe's goroutines for a request's hits
	Hits        int     `json:"hits"`    // hits described, over the timed passes
	HitP50US    float64 `json:"hit_p50_us"`
	HitP99US    float64 `json:"hit_p99_us"`
	SearchP50US float64 `json:"search_p50_us"`
	// RequestP50US is the p50 of search plus snippets; SnippetsP50US the
	// p50 of a request's snippets alone.
	RequestP50US  float64 `json:"request_p50_us"`
	SnippetsP50US float64 `json:"snippets_p50_us"`
	TitlesP50US   float64 `json:"titles_p50_us"`
	AddedP50US    float64 `json:"added_p50_us"`
	Share         float64 `json:"share"`
	Machine       Machine `json:"machine"`
}

// Snippets measures snippet cost over the index in dir, which must store
// text: every query in mode to depth k through the CPU engine, with
// snippets of the server's default length, warmup untimed passes and then
// repeat timed ones, on one thread, a request's snippets on up to workers
// goroutines (api.Describe's; 0: one per core). Double quotes in the queries are
// dropped, as in the and and or runs of Bench.
func Snippets(ctx context.Context, dir string, queries []string, mode query.Mode, k, warmup, repeat, workers int) (*SnippetReport, error) {
	ix, err := index.Open(dir)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if ix.Store() != index.StoreText {
		return nil, fmt.Errorf("peer: %s stores %s, not text: no snippets to measure", dir, ix.Store())
	}
	eng, err := query.New(ix, "cpu")
	if err != nil {
		return nil, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a := analysis.New()
	var search, request, snips, titles, added, hit []time.Duration
	repeat = max(repeat, 1)
	for pass := range warmup + repeat {
		timed := pass >= warmup
		for _, text := range queries {
			t0 := time.Now()
			q, err := query.Parse(a, unquote(text), mode, k)
			if err != nil {
				return nil, err
			}
			res, err := eng.Search(ctx, q)
			if err != nil {
				return nil, err
			}
			hits := make([]api.Hit, len(res.Hits))
			for i, h := range res.Hits {
				hits[i] = api.Hit{DocID: h.DocID, Score: h.Score}
			}
			t1 := time.Now()
			if err := api.Describe(ix, a, q, hits, snippet.DefaultSize, false, workers); err != nil {
				return nil, err
			}
			t2 := time.Now()
			if !timed {
				continue
			}
			search, snips, request = append(search, t1.Sub(t0)), append(snips, t2.Sub(t1)), append(request, t2.Sub(t0))
			if err := api.Describe(ix, a, q, hits, 0, false, workers); err != nil {
				return nil, err
			}
			titles = append(titles, time.Since(t2))
			added = append(added, snips[len(snips)-1]-titles[len(titles)-1])
			for i := range hits {
				h0 := time.Now()
				if err := api.Describe(ix, a, q, hits[i:i+1], snippet.DefaultSize, false, 1); err != nil {
					return nil, err
				}
				hit = append(hit, time.Since(h0))
			}
		}
	}
	rep := &SnippetReport{Index: dir, Queries: len(queries), Mode: string(mode), K: k, Bytes: snippet.DefaultSize,
		Passes: repeat, Workers: workers, Hits: len(hit), Machine: ThisMachine()}
	if len(hit) > 0 {
		h := latency.Summarize(slices.Clone(hit))
		rep.HitP50US, rep.HitP99US = h.P50US, h.P99US
	}
	rep.SearchP50US = latency.US(latency.Median(search))
	rep.RequestP50US = latency.US(latency.Median(request))
	rep.SnippetsP50US = latency.US(latency.Median(snips))
	rep.TitlesP50US = latency.US(latency.Median(titles))
	rep.AddedP50US = latency.US(latency.Median(added))
	var s, r time.Duration
	for i := range request {
		s, r = s+snips[i], r+request[i]
	}
	if r > 0 {
		rep.Share = float64(s) / float64(r)
	}
	return rep, nil
}
