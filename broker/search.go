package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
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
	q, mode, engine, snippets, highlight string // "" when absent: the nodes' defaults
	k, start                             int
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
	p := params{q: v.Get("q"), mode: v.Get("mode"), engine: v.Get("engine"), snippets: v.Get("snippets"), highlight: v.Get("highlight")}
	bad := func(format string, args ...any) (params, error) {
		return p, errorf(http.StatusBadRequest, format, args...)
	}
	if strings.TrimSpace(p.q) == "" {
		return bad("missing parameter q")
	}
	if len(p.q) > lim.MaxQueryBytes {
		return bad("q is %d bytes, over the limit max_query_bytes=%d", len(p.q), lim.MaxQueryBytes)
	}
	if p.mode != "" {
		if _, err := query.ParseMode(p.mode); err != nil {
			return bad("mode %q: want and, or or andor", p.mode)
		}
	}
	var err error
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

// nodeParams is what a shard is asked: its own best start+k hits, from
// rank 0, of which the merge keeps ranks start to start+k-1.
func (p params) nodeParams() url.Values {
	v := url.Values{"q": {p.q}, "k": {strconv.Itoa(p.start + p.k)}}
	for name, val := range map[string]string{"mode": p.mode, "engine": p.engine, "snippets": p.snippets, "highlight": p.highlight} {
		if val != "" {
			v.Set(name, val)
		}
	}
	return v
}

// cacheKey identifies an answer: the request and the generations the
// shards answer it from.
func (p params) cacheKey(gens string) string {
	return strings.Join([]string{p.q, p.mode, strconv.Itoa(p.k), strconv.Itoa(p.start), p.engine, p.snippets, p.highlight, gens}, "\x00")
}

// part is one shard's answer to one query.
type part struct {
	resp *api.SearchResponse
	took time.Duration
	err  error
}

// assemble merges the shards' answers into the broker's answer: a
// node's error about the request is the answer's; a shard without an
// answer is missing (the answer is partial); no answer at all is a 503.
func (b *Broker) assemble(p params, t *table, parts []part, began time.Time) (SearchResponse, time.Duration, error) {
	var lists [][]api.Hit
	var out SearchResponse
	var slowest time.Duration
	for i, pt := range parts {
		var ne *nodeError
		switch {
		case errors.As(pt.err, &ne):
			return out, 0, errorf(ne.status, "%s", ne.msg)
		case pt.err != nil || pt.resp == nil:
			out.MissingShards = append(out.MissingShards, i)
			continue
		}
		r := pt.resp
		if len(lists) == 0 {
			out.Mode, out.Engine, out.Stats.Algorithm = r.Mode, r.Engine, r.Stats.Algorithm
		}
		lists = append(lists, r.Hits)
		out.Stats.PostingsScored += r.Stats.PostingsScored
		out.Stats.BlocksDecoded += r.Stats.BlocksDecoded
		out.Stats.BlocksSkipped += r.Stats.BlocksSkipped
		out.Stats.Took = max(out.Stats.Took, r.Stats.Took)
		slowest = max(slowest, pt.took)
	}
	if len(lists) == 0 {
		return out, 0, errorf(http.StatusServiceUnavailable, "no shard answered: %v", firstErr(parts))
	}
	hits := mergeHits(lists, p.start+p.k)
	out.Hits = hits[min(p.start, len(hits)):]
	out.Query, out.Start, out.Partial = p.q, p.start, len(out.MissingShards) > 0
	out.TookUS = time.Since(began).Microseconds()
	return out, slowest, nil
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
// the current routing table and merging.
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
	path := "/search?" + p.nodeParams().Encode()
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
	resp, slowest, err := b.assemble(p, t, parts, began)
	if err != nil {
		return resp, err
	}
	b.answered(resp, slowest, began)
	if !resp.Partial {
		b.cache.add(key, resp)
	}
	return resp, nil
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
	status, msg := http.StatusInternalServerError, "internal error"
	var he *httpError
	if errors.As(err, &he) {
		status, msg = he.status, he.msg
	} else {
		b.log.Error("internal error", "err", err)
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, api.ErrorResponse{Error: msg})
}
