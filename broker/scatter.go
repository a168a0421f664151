package broker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// nodeError is a node's answer with a status of 400-499: the request's
// fault, the same on every replica, so it is not retried and is passed
// to the client.
type nodeError struct {
	status int
	msg    string
}

func (e *nodeError) Error() string { return fmt.Sprintf("node answered %d: %s", e.status, e.msg) }

// failedAnswer is a node's answer with another status than 200 and
// 4xx: worth another replica, but an answer, so the node is up (a 503 may
// be this request's own: its deadline, an engine the node lacks).
type failedAnswer struct {
	status int
	msg    string
}

func (e *failedAnswer) Error() string { return fmt.Sprintf("node answered %d: %s", e.status, e.msg) }

// maxNodeAnswer bounds the body read from a node: a top-k of max_k hits
// with their snippets is well under it.
const maxNodeAnswer = 64 << 20

// attempt is one request to one replica.
type attempt struct {
	r    *replica
	body []byte
	err  error
	took time.Duration
}

// call sends one shard's request (GET path, or POST path with body) to a
// replica and returns the answer's body and the time the answering
// request took. A replica that fails is marked down and another one is
// tried, each at most once; one that is slower than the shard's running
// p95 is hedged with a request to another replica, and the first answer
// wins. The whole is bounded by broker.shard_timeout.
func (b *Broker) call(ctx context.Context, s *shard, path string, body []byte) ([]byte, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.ShardTimeout)
	defer cancel() // stops the hedge or the retry that lost
	s.st.requests.Add(1)
	lat := s.st.lat
	if body != nil {
		lat = s.st.batchLat
	}
	results := make(chan attempt, len(s.replicas)) // each replica at most once: sends never block
	var tried []*replica
	launch := func() bool {
		r := s.pick(tried, time.Now())
		if r == nil {
			return false
		}
		tried = append(tried, r)
		go func() { results <- b.send(ctx, r, path, body) }()
		return true
	}
	if !launch() {
		s.st.errors.Add(1)
		return nil, 0, errors.New("no replica")
	}
	var hedgeC <-chan time.Time
	if p95 := lat.P95(); b.cfg.Hedge && p95 > 0 && len(s.replicas) > 1 {
		t := time.NewTimer(max(p95, b.cfg.HedgeMin))
		defer t.Stop()
		hedgeC = t.C
	}
	inflight := 1
	var lastErr error
	for inflight > 0 {
		select {
		case a := <-results:
			inflight--
			if a.err == nil {
				lat.add(a.took)
				a.r.pm.time.Observe(a.took.Seconds())
				return a.body, a.took, nil
			}
			var ne *nodeError
			if errors.As(a.err, &ne) {
				return nil, a.took, ne
			}
			lastErr = a.err
			if ctx.Err() == nil && launch() {
				inflight++
				s.st.retries.Add(1)
				b.m.retries.WithLabelValues(s.label()).Inc()
			}
		case <-hedgeC:
			hedgeC = nil
			if launch() {
				inflight++
				s.st.hedges.Add(1)
				b.m.hedges.WithLabelValues(s.label()).Inc()
			}
		}
	}
	s.st.errors.Add(1)
	if ctx.Err() != nil && lastErr == nil {
		lastErr = ctx.Err()
	}
	return nil, 0, fmt.Errorf("shard %d: %w", s.index, lastErr)
}

// send is one request to replica r, counted in its outstanding requests
// and metrics. A failure to reach r marks it down for broker.down_for,
// unless the request was cancelled by the broker.
func (b *Broker) send(ctx context.Context, r *replica, path string, body []byte) attempt {
	r.outstanding.Add(1)
	r.pm.outstanding.Inc()
	defer func() { r.outstanding.Add(-1); r.pm.outstanding.Dec() }()
	r.requests.Add(1)
	began := time.Now()
	data, err := b.do(ctx, r.m.URL+path, body)
	a := attempt{r: r, body: data, err: err, took: time.Since(began)}
	outcome := "ok"
	var ne *nodeError
	var fa *failedAnswer
	switch {
	case err == nil:
		r.lat.add(a.took)
	case ctx.Err() != nil: // the other request won, or the shard's deadline passed
		outcome = "cancelled"
	case errors.As(err, &ne):
		outcome = "refused"
	case errors.As(err, &fa):
		outcome = "failed"
		r.errors.Add(1)
	default:
		outcome = "error"
		r.errors.Add(1)
		r.downUntil.Store(time.Now().Add(b.cfg.DownFor).UnixNano())
	}
	r.pm.outcomes[outcome].Inc()
	return a
}

// do sends one request and reads its answer: a 200's body, a nodeError
// for a 4xx, an error otherwise.
func (b *Broker) do(ctx context.Context, url string, body []byte) ([]byte, error) {
	method, rd := http.MethodGet, io.Reader(nil)
	if body != nil {
		method, rd = http.MethodPost, bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-ndjson")
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxNodeAnswer))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusOK {
		return data, nil
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(data, &e) != nil || e.Error == "" {
		e.Error = http.StatusText(resp.StatusCode)
	}
	if resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusMisdirectedRequest {
		return nil, &nodeError{status: resp.StatusCode, msg: e.Error}
	}
	return nil, &failedAnswer{status: resp.StatusCode, msg: e.Error}
}

// label is the shard's metrics label.
func (s *shard) label() string { return strconv.Itoa(s.index) }
