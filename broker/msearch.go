package broker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/query"
)

// MsearchResponse is the broker's answer of POST /msearch: a node's, its
// items the broker's SearchResponse.
type MsearchResponse struct {
	TookUS    int64         `json:"took_us"`
	Responses []MsearchItem `json:"responses"`
}

// MsearchItem is one line's answer: a SearchResponse and status 200, or
// an error and the status /search would have answered.
type MsearchItem struct {
	*SearchResponse
	Status int    `json:"status"`
	Error  string `json:"error,omitempty"`
}

// mline is one line on its way through the broker.
type mline struct {
	p     params
	key   string
	resp  SearchResponse
	err   error
	done  bool // answered from the cache, or refused
	parts []part
	last  merged  // the latest round's merged answer
	and   *merged // an AND-then-OR line's AND round, when it went on in OR
}

// nodeMsearch is a node's answer of /msearch.
type nodeMsearch struct {
	Responses []struct {
		api.SearchResponse
		Status int    `json:"status"`
		Error  string `json:"error"`
	} `json:"responses"`
}

// handleMsearch answers POST /msearch: each line is checked and looked up
// in the cache, and the others go to every shard as one /msearch (a GPU
// node answers them as a batch), whose items are merged line by line; the
// AND-then-OR lines whose AND hits are too few go again in OR.
func (b *Broker) handleMsearch(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	raw, err := b.readMsearch(r.Body)
	if err != nil {
		b.writeError(w, err)
		return
	}
	t := b.table.Load()
	lines := make([]mline, len(raw))
	var todo []*mline
	for i, l := range raw {
		m := &lines[i]
		v, err := api.MsearchValues(l)
		if err != nil {
			err = errorf(http.StatusBadRequest, "%v", err)
		} else {
			m.p, err = b.parse(v)
		}
		if err != nil {
			m.err, m.done = err, true
			continue
		}
		if len(t.shards) == 0 {
			m.err, m.done = errorf(http.StatusServiceUnavailable, "no shard registered in the cluster yet"), true
			continue
		}
		m.key = m.p.cacheKey(t.gens)
		if c, ok := b.cache.get(m.key); ok {
			b.m.cacheHit.Inc()
			c.Cached = true
			m.resp, m.done = c, true
			continue
		}
		b.m.cacheMiss.Inc()
		todo = append(todo, m)
	}
	b.msearchRound(r.Context(), t, todo, func(m *mline) query.Mode {
		if m.p.mode == query.AndOr {
			return query.And
		}
		return m.p.mode
	})
	var again []*mline
	for _, m := range todo {
		if m.err == nil && needsOr(m.p, m.last) {
			and := m.last
			m.and, again = &and, append(again, m)
		}
	}
	b.msearchRound(r.Context(), t, again, func(*mline) query.Mode { return query.Or })
	resp := MsearchResponse{Responses: make([]MsearchItem, len(lines))}
	for i := range lines {
		m := &lines[i]
		if !m.done && m.err == nil {
			m.resp = answer(m.p, m.last, m.and, began)
			b.answered(m.resp, shardTime(m.last, m.and), began)
			if !m.resp.Partial {
				b.cache.add(m.key, m.resp)
			}
		}
		if m.err != nil {
			status, msg := http.StatusInternalServerError, "internal error"
			var he *httpError
			if errors.As(m.err, &he) {
				status, msg = he.status, he.msg
			}
			resp.Responses[i] = MsearchItem{Status: status, Error: fmt.Sprintf("line %d: %s", i+1, msg)}
			continue
		}
		m.resp.TookUS = time.Since(began).Microseconds()
		resp.Responses[i] = MsearchItem{SearchResponse: &m.resp, Status: http.StatusOK}
	}
	resp.TookUS = time.Since(began).Microseconds()
	w.Header().Set("Cache-Control", "private, no-cache")
	writeJSON(w, http.StatusOK, resp)
}

// msearchRound sends lines, each in its mode, to every shard's /msearch
// and merges each line's items into its last (or its err); a node's 4xx
// item for a line is the line's error, any other failure leaves the
// shard missing for it.
func (b *Broker) msearchRound(ctx context.Context, t *table, lines []*mline, mode func(*mline) query.Mode) {
	if len(lines) == 0 {
		return
	}
	var body bytes.Buffer
	for _, m := range lines {
		nv := map[string]string{}
		for name, vals := range m.p.nodeParams(mode(m)) {
			nv[name] = vals[0]
		}
		enc, _ := json.Marshal(nv) // strings only: cannot fail
		body.Write(enc)
		body.WriteByte('\n')
		m.parts = make([]part, len(t.shards))
	}
	scatter(t, func(i int, s *shard) {
		fail := func(err error) {
			for _, m := range lines {
				m.parts[i].err = err
			}
		}
		if len(s.replicas) == 0 {
			fail(errors.New("no replica"))
			return
		}
		data, took, err := b.call(ctx, s, "/msearch", body.Bytes())
		if err != nil {
			fail(err)
			return
		}
		var nm nodeMsearch
		if err := json.Unmarshal(data, &nm); err != nil || len(nm.Responses) != len(lines) {
			fail(fmt.Errorf("shard %d: unreadable /msearch answer (%d items for %d lines): %v", i, len(nm.Responses), len(lines), err))
			return
		}
		for n, m := range lines {
			it := &nm.Responses[n]
			switch {
			case it.Status == http.StatusOK:
				m.parts[i] = part{resp: &it.SearchResponse, took: took}
			case it.Status >= 400 && it.Status < 500:
				_, msg, _ := strings.Cut(it.Error, ": ") // the node's "line N: ", N its own numbering
				m.parts[i].err = &nodeError{status: it.Status, msg: msg}
			default:
				m.parts[i].err = fmt.Errorf("shard %d answered %d: %s", i, it.Status, it.Error)
			}
		}
	})
	for _, m := range lines {
		m.last, m.err = merge(m.p, m.parts)
	}
}

// readMsearch reads a multi-search body into its non-blank lines, with
// the limits of server.msearch_max_bytes and msearch_max_lines.
func (b *Broker) readMsearch(body io.Reader) ([][]byte, error) {
	lim := b.full.Server
	data, err := io.ReadAll(io.LimitReader(body, lim.MsearchMaxBytes+1))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return nil, errorf(http.StatusRequestEntityTooLarge, "request body is over the limit max_body_bytes=%d", mb.Limit)
		}
		return nil, errorf(http.StatusBadRequest, "reading the body: %v", err)
	}
	if int64(len(data)) > lim.MsearchMaxBytes {
		return nil, errorf(http.StatusRequestEntityTooLarge, "request body is over the limit msearch_max_bytes=%d", lim.MsearchMaxBytes)
	}
	lines, ok := api.MsearchLines(data, lim.MsearchMaxLines)
	if !ok {
		return nil, errorf(http.StatusRequestEntityTooLarge, "request has more than msearch_max_lines=%d queries", lim.MsearchMaxLines)
	}
	if len(lines) == 0 {
		return nil, errorf(http.StatusBadRequest, "empty request: want one JSON object per line, such as {\"q\": \"http server\"}")
	}
	return lines, nil
}
