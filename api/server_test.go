package api

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// blockingEngine waits for its context to end: a search slower than any
// timeout.
type blockingEngine struct{}

func (blockingEngine) Search(ctx context.Context, q query.Query) (query.Result, error) {
	<-ctx.Done()
	return query.Result{}, ctx.Err()
}

// TestRoutes checks every route's answer and every error path and limit.
func TestRoutes(t *testing.T) {
	limited := testConfig(indexA)
	limited.Server.MaxQueryBytes = 20
	limited.Server.MaxTerms = 3
	limited.Server.MaxK = 50
	limited.Server.MaxBodyBytes = 16
	_, lim := newTestServer(t, limited)

	public := testConfig(indexA)
	public.Server.Addr = "0.0.0.0:0"
	public.Server.AdminReload = false
	_, pub := newTestServer(t, public)

	slow := testConfig(indexA)
	slow.Server.Timeout = 20 * time.Millisecond
	s, err := New(Options{Config: slow, Auto: func(*index.Index, query.Engine, []query.Engine) query.Engine { return blockingEngine{} }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	slowSrv := s.Handler()

	tests := []struct {
		name   string
		srv    string // "lim", "pub" or "slow"
		method string
		target string
		body   string
		status int
		want   []string // substrings of the body
		absent []string
	}{
		{"page form", "lim", "GET", "/", "", 200, []string{`<form id="search"`, `name="q"`}, []string{`id="hits"`}},
		{"page results", "lim", "GET", "/?q=alpha", "", 200, []string{`class="hit"`, "http://a.test/", `id="summary"`}, nil},
		{"page escapes", "lim", "GET", "/?q=%3Cb%3Ex%3C%2Fb%3E%22y%22", "", 200, []string{`value="&lt;b&gt;x&lt;/b&gt;&#34;y&#34;"`}, []string{"<b>x"}},
		{"page unbalanced quote", "lim", "GET", "/?q=%3Cb%3Ex%22", "", 400, []string{`id="error"`, "unbalanced", `value="&lt;b&gt;x&#34;"`}, []string{"<b>x"}},
		{"page bad k", "lim", "GET", "/?q=alpha&k=0", "", 400, []string{`id="error"`, "k=0"}, nil},
		{"page limit", "lim", "GET", "/?q=alpha&k=51", "", 400, []string{"max_k=50"}, nil},
		{"page gpu", "lim", "GET", "/?q=alpha&engine=gpu", "", 503, []string{"engine gpu unavailable"}, nil},
		{"page head", "lim", "HEAD", "/", "", 200, nil, nil},
		{"search", "lim", "GET", "/search?q=alpha", "", 200, []string{`"engine":"cpu"`, `"mode":"andor"`, `"url":"http://a.test/`}, nil},
		{"search and", "lim", "GET", "/search?q=alpha+bravo&mode=and", "", 200, []string{`"mode":"and"`, `"docid"`}, nil},
		{"search or", "lim", "GET", "/search?q=alpha+bravo&mode=or&k=3", "", 200, []string{`"mode":"or"`}, nil},
		{"search auto is cpu", "lim", "GET", "/search?q=alpha&engine=auto", "", 200, []string{`"engine":"cpu"`}, nil},
		{"search exhaustive", "lim", "GET", "/search?q=alpha&engine=exhaustive", "", 200, []string{`"engine":"exhaustive"`}, nil},
		{"search bitmap", "lim", "GET", "/search?q=alpha&engine=bitmap", "", 200, []string{`"engine":"bitmap"`}, nil},
		{"search no terms", "lim", "GET", "/search?q=%21%21%21", "", 200, []string{`"hits":[]`}, nil},
		{"search unknown term", "lim", "GET", "/search?q=zzzz", "", 200, []string{`"hits":[]`}, nil},
		{"search repeated term", "lim", "GET", "/search?q=alpha+alpha+alpha", "", 200, []string{`"hits":[{`}, nil},
		{"search start", "lim", "GET", "/search?q=alpha&start=5&k=2", "", 200, []string{`"start":5`}, nil},
		{"search gpu", "lim", "GET", "/search?q=alpha&engine=gpu", "", 503, []string{"has no GPU engine"}, nil},
		{"search unknown engine", "lim", "GET", "/search?q=alpha&engine=warp", "", 400, []string{`engine \"warp\"`}, nil},
		{"search missing q", "lim", "GET", "/search", "", 400, []string{"missing parameter q"}, nil},
		{"search blank q", "lim", "GET", "/search?q=+++", "", 400, []string{"missing parameter q"}, nil},
		{"search bad escape", "lim", "GET", "/search?q=%zz", "", 400, []string{"bad query string"}, nil},
		{"search bad mode", "lim", "GET", "/search?q=alpha&mode=xor", "", 400, []string{`mode \"xor\"`}, nil},
		{"search k not a number", "lim", "GET", "/search?q=alpha&k=ten", "", 400, []string{`k=\"ten\"`}, nil},
		{"search k zero", "lim", "GET", "/search?q=alpha&k=0", "", 400, []string{"k=0: want a positive integer"}, nil},
		{"search k negative", "lim", "GET", "/search?q=alpha&k=-3", "", 400, []string{"k=-3"}, nil},
		{"search k huge", "lim", "GET", "/search?q=alpha&k=99999999999999999999", "", 400, []string{"want an integer"}, nil},
		{"limit max_k", "lim", "GET", "/search?q=alpha&k=51", "", 400, []string{"k=51 is over the limit max_k=50"}, nil},
		{"limit max_k exact", "lim", "GET", "/search?q=alpha&k=50", "", 200, nil, nil},
		{"limit start+k", "lim", "GET", "/search?q=alpha&k=10&start=41", "", 400, []string{"start+k=51 is over the limit max_k=50"}, nil},
		{"limit start overflow", "lim", "GET", "/search?q=alpha&k=10&start=9223372036854775807", "", 400, []string{"start=9223372036854775807 is over the limit max_k=50"}, []string{"-9223372036854775"}},
		{"search start negative", "lim", "GET", "/search?q=alpha&start=-1", "", 400, []string{"start=-1"}, nil},
		{"limit max_query_bytes", "lim", "GET", "/search?q=" + strings.Repeat("a", 21), "", 400, []string{"q is 21 bytes, over the limit max_query_bytes=20"}, nil},
		{"limit max_query_bytes exact", "lim", "GET", "/search?q=" + strings.Repeat("a", 20), "", 200, nil, nil},
		{"limit max_terms", "lim", "GET", "/search?q=alpha+golf+echo+kilo", "", 400, []string{"4 distinct terms, over the limit max_terms=3"}, nil},
		{"limit max_terms exact", "lim", "GET", "/search?q=alpha+golf+echo", "", 200, nil, nil},
		{"limit timeout", "slow", "GET", "/search?q=alpha&engine=auto", "", 503, []string{"longer than the limit timeout=20ms"}, nil},
		{"auto hook", "slow", "GET", "/search?q=alpha&engine=cpu", "", 200, []string{`"engine":"cpu"`}, nil},
		{"search post", "lim", "POST", "/search?q=alpha", "", 405, []string{"method POST not allowed"}, nil},
		{"document", "lim", "GET", "/documents/3", "", 200, []string{`"docid":3`, `"url":"http://a.test/doc0003.txt"`, `"length":`}, nil},
		{"document last", "lim", "GET", "/documents/149", "", 200, []string{`"docid":149`}, nil},
		{"document past end", "lim", "GET", "/documents/150", "", 404, []string{"no document 150", "150 documents"}, nil},
		{"document not a number", "lim", "GET", "/documents/abc", "", 400, []string{`docid \"abc\"`}, nil},
		{"document negative", "lim", "GET", "/documents/-1", "", 400, []string{"docid"}, nil},
		{"document over uint32", "lim", "GET", "/documents/4294967296", "", 400, []string{"below 2^32"}, nil},
		{"stats", "lim", "GET", "/stats", "", 200, []string{`"docs":150`, `"docid_codec":"varint-SU"`, `"hit_rate"`, `"gpu":"no GPU available`}, nil},
		{"healthz", "lim", "GET", "/healthz", "", 200, []string{"ok"}, nil},
		{"metrics", "lim", "GET", "/metrics", "", 200, []string{"gpusearch_http_requests_total", "gpusearch_index_documents 150"}, nil},
		{"unknown route", "lim", "GET", "/nope", "", 404, []string{"no route /nope"}, nil},
		{"reload get", "lim", "GET", "/admin/reload", "", 405, nil, nil},
		{"reload bad json", "lim", "POST", "/admin/reload", "{", 400, []string{"reload body"}, nil},
		{"reload unknown field", "lim", "POST", "/admin/reload", `{"dir":"x"}`, 400, []string{"unknown field"}, nil},
		{"reload two objects", "lim", "POST", "/admin/reload", `{}{}`, 400, []string{"one JSON object"}, nil},
		{"limit max_body_bytes", "lim", "POST", "/admin/reload", `{"index":"` + strings.Repeat("x", 20) + `"}`, 413, []string{"max_body_bytes=16"}, nil},
		{"reload outside the root", "lim", "POST", "/admin/reload", `{"index":"/no"}`, 400, []string{"/no", "server.index_root"}, nil},
		{"reload same dir", "lim", "POST", "/admin/reload", "", 200, []string{`"docs":150`}, nil},
		{"reload forbidden", "pub", "POST", "/admin/reload", "", 403, []string{"server.admin_reload"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var status int
			var body, ctype string
			switch tt.srv {
			case "slow":
				req, err := http.NewRequest(tt.method, tt.target, strings.NewReader(tt.body))
				if err != nil {
					t.Fatal(err)
				}
				rec := httptest.NewRecorder()
				slowSrv.ServeHTTP(rec, req)
				status, body, ctype = rec.Code, rec.Body.String(), rec.Header().Get("Content-Type")
			default:
				base := lim.URL
				if tt.srv == "pub" {
					base = pub.URL
				}
				req, err := http.NewRequest(tt.method, base+tt.target, strings.NewReader(tt.body))
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasPrefix(tt.target, "/admin/") {
					req.Header = adminHeader()
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil {
					t.Fatal(err)
				}
				status, body, ctype = resp.StatusCode, string(b), resp.Header.Get("Content-Type")
			}
			if status != tt.status {
				t.Fatalf("%s %s = %d %s, want %d", tt.method, tt.target, status, body, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("%s %s body = %s, want it to contain %q", tt.method, tt.target, body, w)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(body, a) {
					t.Errorf("%s %s body = %s, want no %q", tt.method, tt.target, body, a)
				}
			}
			// Every API error is JSON {"error": ...}; the page answers HTML.
			if status >= 400 && !strings.HasPrefix(tt.target, "/?") {
				var e ErrorResponse
				if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error == "" {
					t.Errorf("%s %s error body = %q (%v), want JSON {\"error\": ...}", tt.method, tt.target, body, err)
				}
				if !strings.HasPrefix(ctype, "application/json") {
					t.Errorf("%s %s Content-Type = %q, want application/json", tt.method, tt.target, ctype)
				}
			}
		})
	}
}

// TestHealthzBody checks the exact body the contract names.
func TestHealthzBody(t *testing.T) {
	_, ts := newTestServer(t, testConfig(indexA))
	if status, body := do(t, ts.Client(), "GET", ts.URL+"/healthz", ""); status != 200 || body != "ok" {
		t.Errorf("GET /healthz = %d %q, want 200 \"ok\"", status, body)
	}
}

// TestSearchMatchesEngine checks that /search returns the engine's top-k,
// with URLs, and that start pages through the same ranking.
func TestSearchMatchesEngine(t *testing.T) {
	s, ts := newTestServer(t, testConfig(indexA))
	g, err := s.acquire()
	if err != nil {
		t.Fatal(err)
	}
	defer s.done(g)
	for _, mode := range []query.Mode{query.And, query.Or, query.AndOr} {
		for _, text := range []string{"alpha", "bravo charlie", "golf hotel india", "jasper alpha"} {
			t.Run(string(mode)+"/"+text, func(t *testing.T) {
				q, err := query.Parse(analysis.New(), text, mode, 12)
				if err != nil {
					t.Fatal(err)
				}
				want, err := g.cpu.Search(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				for _, page := range []struct{ start, k int }{{0, 12}, {0, 5}, {5, 7}, {10, 2}} {
					var got SearchResponse
					v := url.Values{"q": {text}, "mode": {string(mode)}, "k": {itoa(page.k)}, "start": {itoa(page.start)}}
					getJSON(t, ts.Client(), ts.URL+"/search?"+v.Encode(), &got)
					end := min(page.start+page.k, len(want.Hits))
					wantHits := []Hit{}
					for _, h := range want.Hits[min(page.start, end):end] {
						wantHits = append(wantHits, Hit{DocID: h.DocID, URL: g.ix.URL(h.DocID), Score: h.Score})
					}
					if !equalHits(got.Hits, wantHits) {
						t.Errorf("/search?%s hits = %v, want %v", v.Encode(), got.Hits, wantHits)
					}
				}
			})
		}
	}
}

// equalHits reports whether two rankings are the same: docids, URLs and
// scores (titles and snippets follow from the docids).
func equalHits(a, b []Hit) bool {
	return slices.EqualFunc(a, b, func(x, y Hit) bool {
		return x.DocID == y.DocID && x.URL == y.URL && x.Score == y.Score
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestCache checks hits, misses, normalisation, the hit rate on /stats and
// /metrics, and that a zero size turns the cache off.
func TestCache(t *testing.T) {
	tests := []struct {
		name       string
		entries    int
		queries    []string
		wantCached []bool
	}{
		{"repeat", 10, []string{"q=alpha", "q=alpha"}, []bool{false, true}},
		{"normalised text", 10, []string{"q=Alpha+Bravo", "q=alpha%20%20bravo%21", "q=alphas+bravo"}, []bool{false, true, true}},
		{"term order matters", 10, []string{"q=alpha+bravo", "q=bravo+alpha"}, []bool{false, false}},
		{"mode, k and engine are keys", 10, []string{"q=alpha", "q=alpha&mode=or", "q=alpha&k=11", "q=alpha&engine=bitmap", "q=alpha&engine=cpu"}, []bool{false, false, false, false, true}},
		{"auto shares the cpu entry", 10, []string{"q=alpha&engine=cpu", "q=alpha&engine=auto"}, []bool{false, true}},
		{"pages share a depth", 10, []string{"q=alpha&k=10&start=10", "q=alpha&k=20"}, []bool{false, true}},
		{"eviction", 2, []string{"q=alpha", "q=bravo", "q=charlie", "q=alpha", "q=charlie"}, []bool{false, false, false, false, true}},
		{"off", 0, []string{"q=alpha", "q=alpha"}, []bool{false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(indexA)
			cfg.Server.CacheEntries = tt.entries
			_, ts := newTestServer(t, cfg)
			var hits, misses int64
			for i, q := range tt.queries {
				var got SearchResponse
				getJSON(t, ts.Client(), ts.URL+"/search?"+q, &got)
				if got.Cached != tt.wantCached[i] {
					t.Errorf("query %d (%s): cached = %v, want %v", i, q, got.Cached, tt.wantCached[i])
				}
				if tt.wantCached[i] {
					hits++
				} else if tt.entries > 0 {
					misses++
				}
			}
			var st StatsResponse
			getJSON(t, ts.Client(), ts.URL+"/stats", &st)
			c := st.Server.Cache
			if c.Hits != hits || c.Misses != misses || c.Capacity != tt.entries {
				t.Errorf("/stats cache = %+v, want %d hits, %d misses, capacity %d", c, hits, misses, tt.entries)
			}
			if hits+misses > 0 {
				if want := float64(hits) / float64(hits+misses); c.HitRate != want {
					t.Errorf("/stats hit_rate = %v, want %v", c.HitRate, want)
				}
			}
			_, metrics := do(t, ts.Client(), "GET", ts.URL+"/metrics", "")
			for _, line := range []string{
				`gpusearch_cache_requests_total{result="hit"} ` + itoa(int(hits)),
				`gpusearch_cache_requests_total{result="miss"} ` + itoa(int(misses)),
				`gpusearch_cache_hit_ratio ` + strconv.FormatFloat(c.HitRate, 'g', -1, 64),
				`gpusearch_cache_entries ` + itoa(c.Entries),
			} {
				if !strings.Contains(metrics, line+"\n") {
					t.Errorf("/metrics lacks %q", line)
				}
			}
		})
	}
}
