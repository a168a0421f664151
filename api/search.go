package api

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// searchParams is a checked search request.
type searchParams struct {
	q          string
	mode       query.Mode
	k          int
	start      int
	engine     string
	noSnippets bool // snippets=0
	asHTML     bool // highlight=html
	peek       bool // the k-th hit only tells the page a next one exists: not described
}

// parseSearch reads q, mode, k, start, engine, snippets and highlight,
// applying the config's defaults and limits. Every failure is a 400
// naming the parameter or limit.
func (s *Server) parseSearch(rawQuery string) (searchParams, error) {
	v, err := url.ParseQuery(rawQuery)
	if err != nil {
		return searchParams{}, badParam("bad query string: %v", err)
	}
	lim := s.cfg.Server
	p := searchParams{q: v.Get("q"), engine: s.cfg.Search.Engine}
	if strings.TrimSpace(p.q) == "" {
		return p, badParam("missing parameter q")
	}
	if len(p.q) > lim.MaxQueryBytes {
		return p, badParam("q is %d bytes, over the limit max_query_bytes=%d", len(p.q), lim.MaxQueryBytes)
	}
	mode := s.cfg.Search.Mode
	if m := v.Get("mode"); m != "" {
		mode = m
	}
	if p.mode, err = query.ParseMode(mode); err != nil {
		return p, badParam("mode %q: want and, or or andor", mode)
	}
	if p.k, err = intParam(v, "k", s.cfg.Search.K); err != nil {
		return p, err
	}
	if p.k < 1 {
		return p, badParam("k=%d: want a positive integer", p.k)
	}
	if p.k > lim.MaxK {
		return p, badParam("k=%d is over the limit max_k=%d", p.k, lim.MaxK)
	}
	if p.start, err = intParam(v, "start", 0); err != nil {
		return p, err
	}
	if p.start < 0 {
		return p, badParam("start=%d: want a non-negative integer", p.start)
	}
	if p.start > lim.MaxK { // before adding k, which could overflow
		return p, badParam("start=%d is over the limit max_k=%d", p.start, lim.MaxK)
	}
	if p.start > lim.MaxK-p.k {
		return p, badParam("start+k=%d is over the limit max_k=%d", p.start+p.k, lim.MaxK)
	}
	if e := v.Get("engine"); e != "" {
		p.engine = e
	}
	switch sn := v.Get("snippets"); sn {
	case "", "1":
	case "0":
		p.noSnippets = true
	default:
		return p, badParam("snippets=%q: want 1 or 0", sn)
	}
	switch h := v.Get("highlight"); h {
	case "":
	case "html":
		p.asHTML = true
	default:
		return p, badParam("highlight=%q: want html, or no highlight parameter for byte offsets", h)
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
		return 0, badParam("%s=%q: want an integer", name, s)
	}
	return n, nil
}

// cacheKey identifies a query's answer within one generation: the
// analyzed terms in query order (scores are summed in that order), the
// phrases, the mode, the depth and the engine that answers.
func cacheKey(q query.Query, engine string) string {
	var b strings.Builder
	b.WriteString(string(q.Mode))
	b.WriteByte(0)
	b.WriteString(strconv.Itoa(q.K))
	b.WriteByte(0)
	b.WriteString(engine)
	for _, t := range q.Terms {
		b.WriteByte(0)
		b.WriteString(t)
	}
	for _, p := range q.Phrases {
		b.WriteByte(1) // terms are letters and digits: no 0 or 1 bytes
		b.WriteString(strings.Join(p, "\x00"))
	}
	return b.String()
}

// search answers p on the current index: the ranks start to start+k-1.
func (s *Server) search(ctx context.Context, p searchParams) (SearchResponse, error) {
	began := time.Now()
	g, err := s.acquire()
	if err != nil {
		return SearchResponse{}, err
	}
	defer s.done(g)
	eng, name, err := g.engine(p.engine)
	if err != nil {
		return SearchResponse{}, err
	}
	a := s.analyzer.Get().(*analysis.Analyzer)
	q, err := query.Parse(a, p.q, p.mode, p.start+p.k)
	s.analyzer.Put(a)
	if err != nil {
		return SearchResponse{}, badParam("q: %v", err)
	}
	if len(q.Terms) > s.cfg.Server.MaxTerms {
		return SearchResponse{}, badParam("q has %d distinct terms, over the limit max_terms=%d", len(q.Terms), s.cfg.Server.MaxTerms)
	}
	key := cacheKey(q, name)
	c, hit := g.cache.Get(key)
	if g.cache != nil {
		if hit {
			s.hits.Add(1)
			s.m.cache.WithLabelValues("hit").Inc()
		} else {
			s.misses.Add(1)
			s.m.cache.WithLabelValues("miss").Inc()
		}
	}
	if !hit {
		sctx, cancel := context.WithTimeout(ctx, s.cfg.Server.Timeout)
		res, err := g.search(sctx, eng, q)
		cancel()
		if err != nil {
			return SearchResponse{}, s.searchError(err)
		}
		c = cached{hits: make([]Hit, len(res.Hits)), stats: res.Stats}
		for i, h := range res.Hits {
			c.hits[i] = Hit{DocID: h.DocID, URL: g.url(h.DocID), Score: h.Score}
		}
		g.cache.Add(key, c)
	}
	hits := slices.Clone(c.hits[min(p.start, len(c.hits)):]) // the cache's are shared
	described := hits
	if p.peek && len(hits) > p.k-1 {
		described = hits[:p.k-1]
	}
	if err := s.describe(g, q, described, p.noSnippets, p.asHTML); err != nil {
		return SearchResponse{}, s.searchError(err)
	}
	took := time.Since(began)
	s.m.searchTime.WithLabelValues(string(p.mode), name).Observe(took.Seconds())
	return SearchResponse{
		Query: p.q, Mode: string(p.mode), Engine: name, TookUS: took.Microseconds(),
		Start: p.start, Cached: hit, Hits: hits, Stats: c.stats,
	}, nil
}

// searchError turns an engine's context errors, and errors about the
// index's files changed on disk, into 503s that say why; a phrase on an
// index without positions into a 409, and on an engine without phrases
// (gpu) into a 400.
func (s *Server) searchError(err error) error {
	switch {
	case errors.Is(err, index.ErrCorrupt):
		return s.damaged(err)
	case errors.Is(err, context.DeadlineExceeded):
		return errorf(http.StatusServiceUnavailable, "search took longer than the limit timeout=%s", s.cfg.Server.Timeout)
	case errors.Is(err, context.Canceled):
		return errorf(http.StatusServiceUnavailable, "search cancelled: the client went away")
	case errors.Is(err, index.ErrNoPositions):
		return errorf(http.StatusConflict, "q has a phrase, but the %v", index.ErrNoPositions)
	case errors.Is(err, query.ErrPhraseUnsupported):
		return badParam("q has a phrase: %v; use another engine", err)
	}
	return err
}

func (s *Server) handleSearch(w http.ResponseWriter, r *http.Request) {
	p, err := s.parseSearch(r.URL.RawQuery)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	resp, err := s.search(r.Context(), p)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	w.Header().Set("Cache-Control", cacheRevalidate)
	writeJSON(w, http.StatusOK, resp)
}
