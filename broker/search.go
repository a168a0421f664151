package broker

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/query"
)

// SearchResponse is the broker's answer of GET /search: a node's, and
// when a shard had no replica that answered, Partial and the shards
// missing; the hits are then the best of the other shards, exactly.
type SearchResponse struct {
	api.SearchResponse
	Partial       bool  `json:"partial,omitempty"`
	MissingShards []int `json:"missing_shards,omitempty"`
}

// params is a checked search request, as the broker forwards it.
type params struct {
	q, engine, snippets, highlight string // "" when absent: the nodes' defaults
	mode                           query.Mode
	k, start                       int
}

// httpError is an answer's status and message.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

func errorf(status int, format string, args ...any) error {
	return &httpError{status: status, msg: fmt.Sprintf(format, args...)}
}

// parse reads /search's parameters with the limits of server.* (the
// nodes check them again; the broker needs k and start to merge, and
// refuses what every node would refuse without asking them).
func (b *Broker) parse(v url.Values) (params, error) {
	lim := b.full.Server
	p := params{q: v.Get("q"), engine: v.Get("engine"), snippets: v.Get("snippets"), highlight: v.Get("highlight")}
	bad := func(format string, args ...any) (params, error) {
		return p, errorf(http.StatusBadRequest, format, args...)
	}
	if strings.TrimSpace(p.q) == "" {
		return bad("missing parameter q")
	}
	if len(p.q) > lim.MaxQueryBytes {
		return bad("q is %d bytes, over the limit max_query_bytes=%d", len(p.q), lim.MaxQueryBytes)
	}
	mode := cmp.Or(v.Get("mode"), b.full.Search.Mode)
	var err error
	if p.mode, err = query.ParseMode(mode); err != nil {
		return bad("mode %q: want and, or or andor", mode)
	}
	if p.k, err = intParam(v, "k", b.full.Search.K); err != nil {
		return p, err
	}
	if p.start, err = intParam(v, "start", 0); err != nil {
		return p, err
	}
	switch {
	case p.k < 1:
		return bad("k=%d: want a positive integer", p.k)
	case p.k > lim.MaxK:
		return bad("k=%d is over the limit max_k=%d", p.k, lim.MaxK)
	case p.start < 0:
		return bad("start=%d: want a non-negative integer", p.start)
	case p.start > lim.MaxK:
		return bad("start=%d is over the limit max_k=%d", p.start, lim.MaxK)
	case p.start > lim.MaxK-p.k:
		return bad("start+k=%d is over the limit max_k=%d", p.start+p.k, lim.MaxK)
	}
	return p, nil
}

// intParam reads an integer parameter, def when absent.
func intParam(v url.Values, name string, def int) (int, error) {
	s := v.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, errorf(http.StatusBadRequest, "%s=%q: want an integer", name, s)
	}
	return n, nil
}

// nodeParams is what a shard is asked in mode: its own best start+k hits,
// from rank 0, of which the merge keeps ranks start to start+k-1.
func (p params) nodeParams(mode query.Mode) url.Values {
	v := url.Values{"q": {p.q}, "k": {strconv.Itoa(p.start + p.k)}, "mode": {string(mode)}}
	for name, val := range map[string]string{"engine": p.engine, "snippets": p.snippets, "highlight": p.highlight} {
		if val != "" {
			v.Set(name, val)
		}
	}
	return v
}

// cacheKey identifies an answer: the request and the generations the
// shards answer it from.
func (p params) cacheKey(gens string) string {
	return strings.Join([]string{p.q, string(p.mode), strconv.Itoa(p.k), strconv.Itoa(p.start), p.engine, p.snippets, p.highlight, gens}, "\x00")
}

// part is one shard's answer to one query.
type part struct {
	resp *api.SearchResponse
	took time.Duration
	err  error
}

// merged is the shards' answers to one query in one mode, merged.
type merged struct {
	hits    []api.Hit // the best start+k
	missing []int     // shards without an answer
	slowest time.Duration
	first   *api.SearchResponse // the first shard's answer: engine, algorithm
	stats   query.Stats         // added up; Took the slowest shard's
}

// merge merges the shards' answers to one mode's round: a node's error
// about the request is the round's; a shard without an answer is
// missing; no answer at all is a 503.
func merge(p params, parts []part) (merged, error) {
	var lists [][]api.Hit
	var m merged
	for i, pt := range parts {
		var ne *nodeError
		switch {
		case errors.As(pt.err, &ne):
			return m, errorf(ne.status, "%s", ne.msg)
		case pt.err != nil || pt.resp == nil:
			m.missing = append(m.missing, i)
			continue
		}
		r := pt.resp
		if m.first == nil {
			m.first, m.stats.Algorithm = r, r.Stats.Algorithm
		}
		lists = append(lists, r.Hits)
		m.stats.PostingsScored += r.Stats.PostingsScored
		m.stats.BlocksDecoded += r.Stats.BlocksDecoded
		m.stats.BlocksSkipped += r.Stats.BlocksSkipped
		m.stats.Took = max(m.stats.Took, r.Stats.Took)
		m.slowest = max(m.slowest, pt.took)
	}
	if len(lists) == 0 {
		return m, errorf(http.StatusServiceUnavailable, "no shard answered: %v", firstErr(parts))
	}
	m.hits = mergeHits(lists, p.start+p.k)
	return m, nil
}

// needsOr reports whether an AND-then-OR query's AND round found fewer
// than start+k hits over all the shards: the single index then answers
// in OR, so the broker asks the shards again (a shard alone cannot tell).
func needsOr(p params, and merged) bool {
	return p.mode == query.AndOr && len(and.hits) < p.start+p.k
}

// answer is the broker's answer from the last round (and, for an
// AND-then-OR query answered in OR, the AND round before it, whose
// statistics count as the single index's do).
func answer(p params, last merged, and *merged, began time.Time) SearchResponse {
	out := SearchResponse{Partial: len(last.missing) > 0, MissingShards: last.missing}
	out.Query, out.Mode, out.Start, out.Stats = p.q, string(p.mode), p.start, last.stats
	out.Engine = last.first.Engine
	out.Hits = last.hits[min(p.start, len(last.hits)):]
	if and != nil {
		if and.stats.Algorithm != "" {
			out.Stats.Algorithm = and.stats.Algorithm + "+" + out.Stats.Algorithm
		}
		out.Stats.PostingsScored += and.stats.PostingsScored
		out.Stats.BlocksDecoded += and.stats.BlocksDecoded
		out.Stats.BlocksSkipped += and.stats.BlocksSkipped
		for _, s := range and.missing { // missing in either round
			if !slices.Contains(out.MissingShards, s) {
				out.MissingShards = append(out.MissingShards, s)
			}
		}
		slices.Sort(out.MissingShards)
		out.Partial = len(out.MissingShards) > 0
	}
	out.TookUS = time.Since(began).Microseconds()
	return out
}

// firstErr is the first shard's error, for a message.
func firstErr(parts []part) error {
	for _, pt := range parts {
		if pt.err != nil {
			return pt.err
		}
	}
	return errors.New("no replica")
}

// search answers one query: from the cache, or by asking every shard of
// the current routing table and merging (an AND-then-OR query in AND,
// then in OR if the shards' AND hits are too few).
func (b *Broker) search(ctx context.Context, p params) (SearchResponse, error) {
	began := time.Now()
	t := b.table.Load()
	if len(t.shards) == 0 {
		return SearchResponse{}, errorf(http.StatusServiceUnavailable, "no shard registered in the cluster yet")
	}
	key := p.cacheKey(t.gens)
	if c, ok := b.cache.get(key); ok {
		b.m.cacheHit.Inc()
		c.Cached, c.TookUS = true, time.Since(began).Microseconds()
		return c, nil
	}
	b.m.cacheMiss.Inc()
	mode := p.mode
	if mode == query.AndOr {
		mode = query.And
	}
	last, err := b.round(ctx, t, p, mode)
	if err != nil {
		return SearchResponse{}, err
	}
	var and *merged
	if needsOr(p, last) {
		and = &last
		if last, err = b.round(ctx, t, p, query.Or); err != nil {
			return SearchResponse{}, err
		}
	}
	resp := answer(p, last, and, began)
	b.answered(resp, shardTime(last, and), began)
	if !resp.Partial {
		b.cache.add(key, resp)
	}
	return resp, nil
}

// round asks every shard for p in mode and merges their answers.
func (b *Broker) round(ctx context.Context, t *table, p params, mode query.Mode) (merged, error) {
	path := "/search?" + p.nodeParams(mode).Encode()
	parts := make([]part, len(t.shards))
	scatter(t, func(i int, s *shard) {
		if len(s.replicas) == 0 {
			parts[i].err = errors.New("no replica")
			return
		}
		body, took, err := b.call(ctx, s, path, nil)
		parts[i] = part{took: took, err: err}
		if err == nil {
			parts[i].resp = new(api.SearchResponse)
			if err := json.Unmarshal(body, parts[i].resp); err != nil {
				parts[i] = part{err: fmt.Errorf("shard %d: unreadable answer: %w", i, err)}
			}
		}
	})
	return merge(p, parts)
}

// shardTime is the time the shards took for a query: its slowest
// answer in each round.
func shardTime(last merged, and *merged) time.Duration {
	if and != nil {
		return last.slowest + and.slowest
	}
	return last.slowest
}

// answered records an answer's partiality and the broker's overhead over
// its slowest shard.
func (b *Broker) answered(resp SearchResponse, slowest time.Duration, began time.Time) {
	if resp.Partial {
		b.partial.Add(1)
		b.m.partial.Inc()
	}
	over := time.Since(began) - slowest
	b.overhead.add(over)
	b.m.overhead.Observe(over.Seconds())
}

// scatter runs f on every shard of t at once, the first on the caller's
// goroutine, and waits for all.
func scatter(t *table, f func(int, *shard)) {
	var wg sync.WaitGroup
	for i, s := range t.shards[1:] {
		wg.Add(1)
		go func() { defer wg.Done(); f(i+1, s) }()
	}
	f(0, t.shards[0])
	wg.Wait()
}

func (b *Broker) handleSearch(w http.ResponseWriter, r *http.Request) {
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		b.writeError(w, errorf(http.StatusBadRequest, "bad query string: %v", err))
		return
	}
	p, err := b.parse(v)
	if err != nil {
		b.writeError(w, err)
		return
	}
	resp, err := b.search(r.Context(), p)
	if err != nil {
		b.writeError(w, err)
		return
	}
	w.Header().Set("Cache-Control", "private, no-cache")
	writeJSON(w, http.StatusOK, resp)
}

// writeJSON answers v as JSON with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil { // only this package's types: a bug
		panic(errors.Join(errors.New("broker: encoding a response"), err))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// writeError answers err as a node would: {"error": ...} with its status
// (500 for an error that is not an httpError).
func (b *Broker) writeError(w http.ResponseWriter, err error) {
	status, msg := b.statusOf(err)
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, api.ErrorResponse{Error: msg})
}
