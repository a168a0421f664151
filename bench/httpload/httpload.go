// Package httpload is the closed-loop HTTP benchmark behind gpusearch
// bench http: workers send GET /search (or POST /msearch with a batch of
// queries) to a running server and wait for each answer before sending
// the next (Load), and the same queries run in process, without HTTP, for
// the overhead HTTP adds (InProcess).
package httpload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/bench/latency"
	"github.com/gpusearch/gpusearch/eval"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// Options are bench http's settings.
type Options struct {
	Addr        string   // the server, HOST:PORT
	Queries     []string // query texts, sent round-robin
	Mode        query.Mode
	Engine      string // the engine the server is asked for
	K           int
	NoSnippets  bool          // ask for snippets=0: titles without snippets
	Concurrency []int         // a run per value
	Duration    time.Duration // of each run (0: until MaxRequests)
	Warmup      time.Duration // unmeasured load before each run
	MaxRequests int64         // stop each run after this many (0: no bound)
	// Msearch, when positive, sends POST /msearch requests of this many
	// queries each (the queries round-robin) instead of GET /search.
	Msearch int
	// Expect names index snapshots, the commits the server may serve
	// during the runs: every answer (of warm-ups too) is recorded and, at
	// the end, checked against the CPU engine's answers on each (Check).
	Expect   []string
	Progress io.Writer
}

// Report is what bench http --json prints.
type Report struct {
	Addr        string   `json:"addr"`
	Queries     int      `json:"queries"` // distinct queries, sent round-robin
	Mode        string   `json:"mode"`
	Engine      string   `json:"engine"`
	K           int      `json:"k"`
	Snippets    bool     `json:"snippets"`          // false: sent snippets=0
	Msearch     int      `json:"msearch,omitempty"` // queries per POST /msearch; 0: GET /search
	Runs        []Run    `json:"runs"`
	InProcess   *Summary `json:"in_process,omitempty"`                    // same queries, same engine, no HTTP, one at a time
	OverheadP50 float64  `json:"overhead_vs_in_process_p50_us,omitempty"` // concurrency-1 p50 - in-process p50
	Check       *Check   `json:"check,omitempty"`                         // with Expect

	answers *answers // recorded for Check, with Expect
}

// Run is one closed-loop run at a fixed concurrency.
type Run struct {
	Concurrency int     `json:"concurrency"`
	Seconds     float64 `json:"seconds"`
	Errors      int64   `json:"errors"`
	FirstError  string  `json:"first_error,omitempty"`
	QPS         float64 `json:"qps"` // successful requests per second
	// QueriesPerS is QPS times the queries a request carries (Msearch).
	QueriesPerS float64 `json:"queries_per_s"`
	Summary
	// ServerP50US is the p50 of the answers' took_us, the time the server
	// spent inside the search (analysis, cache, engine, URLs), and
	// OverheadP50US the p50 of each request's latency minus its took_us:
	// HTTP, routing, parameters, JSON, logs and metrics, on both sides.
	ServerP50US   float64 `json:"server_p50_us"`
	OverheadP50US float64 `json:"overhead_p50_us"`
}

// Summary describes a set of successful request latencies.
type Summary struct {
	Requests int64   `json:"requests"`
	MeanUS   float64 `json:"mean_us"`
	P50US    float64 `json:"p50_us"`
	P90US    float64 `json:"p90_us"`
	P99US    float64 `json:"p99_us"`
	MaxUS    float64 `json:"max_us"`
}

// summarize gives the report's figures of latencies (latency.Summarize).
func summarize(d []time.Duration) Summary {
	s := latency.Summarize(d)
	return Summary{Requests: int64(s.N), MeanUS: s.MeanUS, P50US: s.P50US, P90US: s.P90US, P99US: s.P99US, MaxUS: s.MaxUS}
}

// ReadQueries reads a queries file's texts (one query per line,
// optionally qid<TAB>text; see eval.ReadQueries), skipping blank ones.
func ReadQueries(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lines, err := eval.ReadQueries(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	qs := make([]string, 0, len(lines))
	for _, l := range lines {
		if t := strings.TrimSpace(l.Text); t != "" {
			qs = append(qs, t)
		}
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("%s: no queries", path)
	}
	return qs, nil
}

// Load sends the queries to the server at each concurrency in turn, each
// run after its warm-up, until ctx ends.
func Load(ctx context.Context, o Options) (*Report, error) {
	rep := &Report{Addr: o.Addr, Queries: len(o.Queries), Mode: string(o.Mode), Engine: o.Engine, K: o.K, Snippets: !o.NoSnippets,
		Msearch: max(o.Msearch, 0)}
	reqs, err := requests(o)
	if err != nil {
		return nil, err
	}
	if len(o.Expect) > 0 {
		rep.answers = newAnswers(len(reqs))
	}
	for _, c := range o.Concurrency {
		if o.Warmup > 0 {
			closedLoop(ctx, reqs, c, o.Warmup, 0, rep.answers)
		}
		run := closedLoop(ctx, reqs, c, o.Duration, o.MaxRequests, rep.answers)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		run.QueriesPerS = run.QPS * float64(max(rep.Msearch, 1))
		progress(o.Progress, "concurrency %3d: %8.0f req/s %8.0f q/s  p50 %7.0fus  p99 %7.0fus  server p50 %6.0fus  overhead p50 %5.0fus  (%d requests, %d errors)\n",
			c, run.QPS, run.QueriesPerS, run.P50US, run.P99US, run.ServerP50US, run.OverheadP50US, run.Requests, run.Errors)
		rep.Runs = append(rep.Runs, run)
	}
	return rep, nil
}

// request is one request a worker sends: a GET of url, or a POST of body
// when it is not nil.
type request struct {
	url  string
	body []byte
}

// requests are the requests of o, sent round-robin: a GET /search per
// query, or POST /msearch bodies of o.Msearch queries each, as many as
// it takes for every query to be in one.
func requests(o Options) ([]request, error) {
	params := func(q string) url.Values {
		v := url.Values{"q": {q}, "mode": {string(o.Mode)}, "k": {strconv.Itoa(o.K)}, "engine": {o.Engine}}
		if o.NoSnippets {
			v.Set("snippets", "0")
		}
		return v
	}
	if o.Msearch <= 0 {
		reqs := make([]request, len(o.Queries))
		for i, q := range o.Queries {
			reqs[i] = request{url: "http://" + o.Addr + "/search?" + params(q).Encode()}
		}
		return reqs, nil
	}
	n := (len(o.Queries) + o.Msearch - 1) / o.Msearch
	reqs := make([]request, n)
	for i := range reqs {
		var body []byte
		for j := range o.Msearch {
			line := map[string]string{}
			for k, v := range params(o.Queries[(i*o.Msearch+j)%len(o.Queries)]) {
				line[k] = v[0]
			}
			b, err := json.Marshal(line)
			if err != nil {
				return nil, err
			}
			body = append(append(body, b...), '\n')
		}
		reqs[i] = request{url: "http://" + o.Addr + "/msearch", body: body}
	}
	return reqs, nil
}

// SetInProcess records the in-process latencies and, where a run had a
// concurrency of 1, the HTTP overhead at p50.
func (rep *Report) SetInProcess(in Summary, w io.Writer) {
	rep.InProcess = &in
	progress(w, "in process     : p50 %7.1fus  p99 %7.1fus  (%d queries)\n", in.P50US, in.P99US, in.Requests)
	for _, r := range rep.Runs {
		if r.Concurrency == 1 {
			rep.OverheadP50 = r.P50US - in.P50US
			progress(w, "HTTP overhead at p50: %.1fus\n", rep.OverheadP50)
		}
	}
}

// progress writes a progress line to w unless it is nil.
func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

// closedLoop runs a closed loop of conc workers over reqs (round-robin)
// until d has passed (d > 0) or max requests were sent (max > 0), or ctx
// ends, recording the answers in rec unless it is nil.
func closedLoop(ctx context.Context, reqs []request, conc int, d time.Duration, max int64, rec *answers) Run {
	tr := &http.Transport{MaxIdleConns: conc, MaxIdleConnsPerHost: conc, DisableCompression: true, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	var issued, errs atomic.Int64
	var firstErr sync.Once
	run := Run{Concurrency: conc}
	lat := make([][]time.Duration, conc)
	took := make([][]time.Duration, conc) // the server's took_us
	over := make([][]time.Duration, conc) // latency - took_us
	var wg sync.WaitGroup
	start := time.Now()
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				n := issued.Add(1)
				if max > 0 && n > max {
					return
				}
				t0 := time.Now()
				r := int((n - 1) % int64(len(reqs)))
				t, answer, err := send(ctx, client, reqs[r])
				if err == nil && rec != nil {
					err = rec.record(r, answer)
				}
				if err != nil {
					if ctx.Err() != nil { // cut off by the end of the run
						return
					}
					errs.Add(1)
					firstErr.Do(func() { run.FirstError = err.Error() })
					continue
				}
				d := time.Since(t0)
				lat[w] = append(lat[w], d)
				took[w] = append(took[w], t)
				over[w] = append(over[w], d-t)
			}
		}()
	}
	wg.Wait()
	run.Seconds = time.Since(start).Seconds()
	run.Errors = errs.Load()
	run.Summary = summarize(slices.Concat(lat...))
	run.ServerP50US = latency.Summarize(slices.Concat(took...)).P50US
	run.OverheadP50US = latency.Summarize(slices.Concat(over...)).P50US
	if run.Seconds > 0 {
		run.QPS = float64(run.Requests) / run.Seconds
	}
	return run
}

// tookField precedes the server's time in a /search answer.
var tookField = []byte(`"took_us":`)

// lineError marks a failed line of a /msearch answer.
var lineError = []byte(`"error":`)

// send sends r, reads the whole answer, and returns the took_us it
// reports first (0 when absent) and the answer; anything but 200 is an
// error, and so is a /msearch answer with a failed line.
func send(ctx context.Context, c *http.Client, r request) (time.Duration, []byte, error) {
	method, body := http.MethodGet, io.Reader(nil)
	if r.body != nil {
		method, body = http.MethodPost, bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.url, body)
	if err != nil {
		return 0, nil, err
	}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/x-ndjson")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, nil, fmt.Errorf("%s %s: %s: %s", method, r.url, resp.Status, strings.TrimSpace(string(answer)))
	}
	if r.body != nil {
		if i := bytes.Index(answer, lineError); i >= 0 {
			return 0, nil, fmt.Errorf("%s %s: a line failed: %.200s", method, r.url, answer[i:])
		}
	}
	var took int64
	if i := bytes.Index(answer, tookField); i >= 0 {
		rest := answer[i+len(tookField):]
		for _, c := range rest {
			if c < '0' || c > '9' {
				break
			}
			took = took*10 + int64(c-'0')
		}
	}
	return time.Duration(took) * time.Microsecond, answer, nil
}

// InProcess times the work a search request does inside the server
// (analysis, the engine, the URLs of the hits) with no HTTP, one query at
// a time over o's queries on eng over ix: unmeasured for o.Warmup (which
// also faults this process's mapping of the index in, as the server's
// already is), then bounded like a run.
func InProcess(ctx context.Context, ix *index.Index, eng query.Engine, o Options) (Summary, error) {
	a := analysis.New()
	loop := func(d time.Duration, max int64) ([]time.Duration, error) {
		var lat []time.Duration
		end := time.Now().Add(d)
		for i := 0; (d <= 0 || time.Now().Before(end)) && (max <= 0 || int64(i) < max); i++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t0 := time.Now()
			q, err := query.Parse(a, o.Queries[i%len(o.Queries)], o.Mode, o.K)
			if err != nil {
				return nil, err
			}
			res, err := eng.Search(ctx, q)
			if err != nil {
				return nil, err
			}
			urls := make([]string, len(res.Hits)) // the server looks the URLs up too
			for j, h := range res.Hits {
				urls[j] = ix.URL(h.DocID)
			}
			lat = append(lat, time.Since(t0))
		}
		return lat, nil
	}
	if o.Warmup > 0 {
		if _, err := loop(o.Warmup, 0); err != nil {
			return Summary{}, err
		}
	}
	lat, err := loop(o.Duration, o.MaxRequests)
	if err != nil {
		return Summary{}, err
	}
	return summarize(lat), nil
}
