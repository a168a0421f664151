package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// MsearchResponse is the answer of POST /msearch: one item per query line,
// in the order of the lines.
type MsearchResponse struct {
	TookUS    int64         `json:"took_us"` // the whole request
	Responses []MsearchItem `json:"responses"`
}

// MsearchItem is one line's answer: the fields of a SearchResponse and
// status 200, or an error and the status /search would have answered.
type MsearchItem struct {
	*SearchResponse
	Status int    `json:"status"`
	Error  string `json:"error,omitempty"`
}

// msearchLine is a query line: /search's parameters, each a JSON
// string, number, boolean or null.
type msearchLine struct {
	Q         msearchValue `json:"q"`
	Mode      msearchValue `json:"mode"`
	K         msearchValue `json:"k"`
	Start     msearchValue `json:"start"`
	Engine    msearchValue `json:"engine"`
	Snippets  msearchValue `json:"snippets"`
	Highlight msearchValue `json:"highlight"`
}

// msearchValue is a parameter's value as /search would get it: a string
// as it is, a number as written, true and false as 1 and 0; set is false
// for null or an absent key.
type msearchValue struct {
	s   string
	set bool
}

// UnmarshalJSON implements json.Unmarshaler; raw is a valid JSON value.
func (v *msearchValue) UnmarshalJSON(raw []byte) error {
	switch c := raw[0]; {
	case c == '"':
		v.set = true
		if bytes.IndexByte(raw, '\\') < 0 { // nothing to unescape
			v.s = string(raw[1 : len(raw)-1])
			return nil
		}
		return json.Unmarshal(raw, &v.s)
	case c == '-' || c >= '0' && c <= '9':
		v.s, v.set = string(raw), true
	case c == 't' || c == 'f':
		v.s, v.set = map[bool]string{true: "1", false: "0"}[c == 't'], true
	case c == 'n':
		*v = msearchValue{}
	default: // an object or an array
		return &json.UnmarshalTypeError{Value: "object or array", Type: reflect.TypeFor[string]()}
	}
	return nil
}

// MsearchValues reads one line of a multi-search body: a JSON object of
// /search's parameters, each a string, a number (as written), a boolean
// (1 or 0) or null (absent). Its error says what is wrong with the line,
// for a 400 answer; the broker reads its lines with it too.
func MsearchValues(line []byte) (url.Values, error) {
	var l msearchLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, badParam("field %q: want a string, number or boolean", te.Field)
		}
		return nil, badParam("want a JSON object of /search's parameters (q, mode, k, start, engine, snippets, highlight): %v", err)
	}
	if dec.More() {
		return nil, badParam("want one JSON object a line")
	}
	v := make(url.Values, 7)
	for _, f := range [...]struct {
		name string
		v    msearchValue
	}{{"q", l.Q}, {"mode", l.Mode}, {"k", l.K}, {"start", l.Start}, {"engine", l.Engine}, {"snippets", l.Snippets}, {"highlight", l.Highlight}} {
		if f.v.set {
			v[f.name] = []string{f.v.s}
		}
	}
	return v, nil
}

// msearchQuery is one line of a multi-search on its way through.
type msearchQuery struct {
	p    searchParams
	q    query.Query
	eng  query.Engine
	name string // the engine's name, as in the cache key
	key  string
	c    cached // the answer, from the cache or the engine
	hit  bool
	err  error
}

// handleMsearch answers POST /msearch: a body of newline-delimited JSON
// objects, each with the fields /search takes as query parameters. Every
// line is answered, in order; a line's error is its item's, and fails no
// other. Queries to one engine that answers batches (the GPU's) go to it
// as one SearchBatch; the others run one by one.
func (s *Server) handleMsearch(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	lines, err := s.readMsearch(r.Body)
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	g, err := s.acquire()
	if err != nil {
		writeError(w, s.log, err)
		return
	}
	defer s.done(g)
	qs := make([]msearchQuery, len(lines))
	for i, line := range lines {
		qs[i].err = s.prepareMsearch(g, line, &qs[i])
	}
	s.runMsearch(r.Context(), g, qs)
	resp := MsearchResponse{Responses: make([]MsearchItem, len(qs))}
	for i := range qs {
		m := &qs[i]
		if m.err == nil {
			var sr SearchResponse
			if sr, m.err = s.answerMsearch(g, m, began); m.err == nil {
				resp.Responses[i] = MsearchItem{SearchResponse: &sr, Status: http.StatusOK}
				continue
			}
		}
		status, msg := statusOf(m.err)
		if status >= 500 && status != http.StatusServiceUnavailable {
			s.log.Error("internal error", "err", m.err)
		}
		resp.Responses[i] = MsearchItem{Status: status, Error: fmt.Sprintf("line %d: %s", i+1, msg)}
	}
	resp.TookUS = time.Since(began).Microseconds()
	w.Header().Set("Cache-Control", cacheRevalidate)
	writeMsearch(w, &resp)
}

// msearchBufs recycles the buffers answers are encoded into: an answer
// of 64 lines is tens of kilobytes, which json.Marshal would allocate,
// and copy again to add the newline, for every request.
var msearchBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeMsearch answers resp as writeJSON would, through a recycled buffer.
func writeMsearch(w http.ResponseWriter, resp *MsearchResponse) {
	buf := msearchBufs.Get().(*bytes.Buffer)
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(resp); err != nil { // only this package's types: a bug
		panic(errors.Join(errors.New("api: encoding a response"), err))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes())
	if buf.Cap() <= 4<<20 { // a rare huge answer is not kept
		msearchBufs.Put(buf)
	}
}

// readMsearch reads a multi-search body and splits it into its non-blank
// lines, refusing (413) a body over server.msearch_max_bytes or more lines
// than server.msearch_max_lines, and (400) a body without any.
func (s *Server) readMsearch(body io.Reader) ([][]byte, error) {
	lim := s.cfg.Server
	data, err := io.ReadAll(io.LimitReader(body, lim.MsearchMaxBytes+1))
	if err != nil {
		return nil, err // over max_body_bytes (413) or a read timeout (408)
	}
	if int64(len(data)) > lim.MsearchMaxBytes {
		return nil, errorf(http.StatusRequestEntityTooLarge, "request body is over the limit msearch_max_bytes=%d", lim.MsearchMaxBytes)
	}
	lines, ok := MsearchLines(data, lim.MsearchMaxLines)
	if !ok {
		return nil, errorf(http.StatusRequestEntityTooLarge, "request has more than msearch_max_lines=%d queries", lim.MsearchMaxLines)
	}
	if len(lines) == 0 {
		return nil, badParam("empty request: want one JSON object per line, such as {\"q\": \"http server\"}")
	}
	return lines, nil
}

// MsearchLines splits a multi-search body into its non-blank lines,
// trimmed; ok is false when it holds more than maxLines of them.
func MsearchLines(data []byte, maxLines int) (lines [][]byte, ok bool) {
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		if len(lines) == maxLines {
			return nil, false
		}
		lines = append(lines, line)
	}
	return lines, true
}

// prepareMsearch parses a line into m and looks its answer up in the
// cache, as /search does.
func (s *Server) prepareMsearch(g *generation, line []byte, m *msearchQuery) error {
	v, err := MsearchValues(line)
	if err != nil {
		return err
	}
	if m.p, err = s.parseSearch(v.Encode()); err != nil {
		return err
	}
	if m.eng, m.name, err = g.engine(m.p.engine); err != nil {
		return err
	}
	a := s.analyzer.Get().(*analysis.Analyzer)
	m.q, err = query.Parse(a, m.p.q, m.p.mode, m.p.start+m.p.k)
	s.analyzer.Put(a)
	if err != nil {
		return badParam("q: %v", err)
	}
	if len(m.q.Terms) > s.cfg.Server.MaxTerms {
		return badParam("q has %d distinct terms, over the limit max_terms=%d", len(m.q.Terms), s.cfg.Server.MaxTerms)
	}
	m.key = cacheKey(m.q, m.name)
	m.c, m.hit = g.cache.Get(m.key)
	if g.cache != nil {
		if m.hit {
			s.hits.Add(1)
			s.m.cache.WithLabelValues("hit").Inc()
		} else {
			s.misses.Add(1)
			s.m.cache.WithLabelValues("miss").Inc()
		}
	}
	return nil
}

// runMsearch answers the lines the cache did not: those of each engine
// that answers batches in one SearchBatch (one by one if the batch
// fails, so that each line gets its own error), the others one by one,
// each call under server.timeout.
func (s *Server) runMsearch(ctx context.Context, g *generation, qs []msearchQuery) {
	var engines []query.Engine // in the order of their first line
	for i := range qs {
		if m := &qs[i]; m.err == nil && !m.hit && !slices.Contains(engines, m.eng) {
			engines = append(engines, m.eng)
		}
	}
	for _, eng := range engines {
		var todo []*msearchQuery
		var batch []query.Query
		for i := range qs {
			if m := &qs[i]; m.err == nil && !m.hit && m.eng == eng {
				todo, batch = append(todo, m), append(batch, m.q)
			}
		}
		if be, ok := eng.(query.BatchEngine); ok && len(todo) > 1 {
			sctx, cancel := context.WithTimeout(ctx, s.cfg.Server.Timeout)
			rs, err := g.searchBatch(sctx, be, batch)
			cancel()
			if err == nil {
				for n, m := range todo {
					m.c = s.cacheMsearch(g, m, rs[n])
				}
				continue
			}
		}
		for _, m := range todo {
			sctx, cancel := context.WithTimeout(ctx, s.cfg.Server.Timeout)
			res, err := g.search(sctx, eng, m.q)
			cancel()
			if err != nil {
				m.err = s.searchError(err)
				continue
			}
			m.c = s.cacheMsearch(g, m, res)
		}
	}
}

// cacheMsearch turns an engine's answer into the cached form, with the
// hits' URLs, and caches it.
func (s *Server) cacheMsearch(g *generation, m *msearchQuery, res query.Result) cached {
	c := cached{hits: make([]Hit, len(res.Hits)), stats: res.Stats}
	for i, h := range res.Hits {
		c.hits[i] = Hit{DocID: h.DocID, URL: g.url(h.DocID), Score: h.Score}
	}
	g.cache.Add(m.key, c)
	return c
}

// answerMsearch is a line's SearchResponse: the ranks asked for, with
// their titles and snippets. Its time is from the request's start.
func (s *Server) answerMsearch(g *generation, m *msearchQuery, began time.Time) (SearchResponse, error) {
	p := &m.p
	hits := slices.Clone(m.c.hits[min(p.start, len(m.c.hits)):]) // the cache's are shared
	if err := s.describe(g, m.q, hits, p.noSnippets, p.asHTML); err != nil {
		return SearchResponse{}, s.searchError(err)
	}
	took := time.Since(began)
	s.m.searchTime.WithLabelValues(string(p.mode), m.name).Observe(took.Seconds())
	return SearchResponse{
		Query: p.q, Mode: string(p.mode), Engine: m.name, TookUS: took.Microseconds(),
		Start: p.start, Cached: m.hit, Hits: hits, Stats: m.c.stats,
	}, nil
}

// searchBatch runs be on qs under the index's Guard, as search runs one
// query: an error about the index's files marks the generation damaged.
func (g *generation) searchBatch(ctx context.Context, be query.BatchEngine, qs []query.Query) ([]query.Result, error) {
	if err := g.damage.Load(); err != nil {
		return nil, *err
	}
	var rs []query.Result
	err := g.ix.Guard(func() (err error) {
		rs, err = be.SearchBatch(ctx, qs)
		return err
	})
	if errors.Is(err, index.ErrCorrupt) {
		g.damage.CompareAndSwap(nil, &err)
	}
	if err == nil && len(rs) != len(qs) {
		err = fmt.Errorf("api: engine answered %d of a batch of %d queries", len(rs), len(qs))
	}
	return rs, err
}
