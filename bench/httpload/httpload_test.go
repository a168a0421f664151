package httpload

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	_ "github.com/gpusearch/gpusearch/codecplugins/all"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
	"github.com/gpusearch/gpusearch/query"
)

func TestReadQueries(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		want    []string
		wantErr string
	}{
		{"plain", "a b\nc\n", []string{"a b", "c"}, ""},
		{"qid and tab", "1\tparse json\n2\thttp  server\n", []string{"parse json", "http  server"}, ""},
		{"blank lines", "\n  \nx\n\n", []string{"x"}, ""},
		{"no newline at end", "x\ty", []string{"y"}, ""},
		{"empty", "\n\n", nil, "no queries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "q.txt")
			if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadQueries(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ReadQueries(%q) error = %v, want %q", tt.file, err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ReadQueries(%q) = %q, %v, want %q", tt.file, got, err, tt.want)
			}
		})
	}
	if _, err := ReadQueries(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Errorf("ReadQueries(missing file) = nil error")
	}
}

// TestClosedLoop checks the load loop's bounds and error counting against a
// server that fails every third request.
func TestClosedLoop(t *testing.T) {
	var served atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1)%3 == 0 {
			http.Error(w, `{"error":"no"}`, http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"query":"a","took_us":5,"hits":[]}`))
	}))
	defer ts.Close()
	reqs := []request{{url: ts.URL + "/search?q=a"}, {url: ts.URL + "/search?q=b"}}
	tests := []struct {
		name       string
		conc       int
		d          time.Duration
		max        int64
		wantServed int64 // 0: bounded by time, not count
	}{
		{"count, one worker", 1, 0, 30, 30},
		{"count, many workers", 8, 0, 90, 90},
		{"time", 4, 100 * time.Millisecond, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			served.Store(0)
			start := time.Now()
			run := closedLoop(context.Background(), reqs, tt.conc, tt.d, tt.max, nil)
			n := served.Load()
			if tt.wantServed > 0 && n != tt.wantServed {
				t.Errorf("closedLoop sent %d requests, want %d", n, tt.wantServed)
			}
			if tt.d > 0 && time.Since(start) > tt.d+2*time.Second {
				t.Errorf("closedLoop ran %v, want about %v", time.Since(start), tt.d)
			}
			if run.Concurrency != tt.conc || run.Requests+run.Errors < n-int64(tt.conc) || run.Errors < n/3-int64(tt.conc) {
				t.Errorf("closedLoop = %+v with %d served, want about %d errors", run, n, n/3)
			}
			if tt.wantServed > 0 && (run.Requests+run.Errors != n || run.Errors != n/3) {
				t.Errorf("closedLoop = %d ok + %d errors, want %d + %d", run.Requests, run.Errors, n-n/3, n/3)
			}
			if run.Errors > 0 && !strings.Contains(run.FirstError, "503") {
				t.Errorf("first error = %q, want the 503", run.FirstError)
			}
			if run.QPS <= 0 || run.P50US <= 0 {
				t.Errorf("closedLoop = %+v, want positive qps and p50", run)
			}
			if run.ServerP50US != 5 || math.Abs(run.OverheadP50US-(run.P50US-5)) > 1e-6 {
				t.Errorf("closedLoop server p50 = %v, overhead p50 = %v, want 5 and p50-5 = %v", run.ServerP50US, run.OverheadP50US, run.P50US-5)
			}
		})
	}
}

// TestLoadSnippets checks that NoSnippets asks for snippets=0, and that
// the report says which was asked.
func TestLoadSnippets(t *testing.T) {
	for _, no := range []bool{false, true} {
		var got atomic.Value
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got.Store(r.URL.Query().Get("snippets"))
			w.Write([]byte(`{"took_us":1,"hits":[]}`))
		}))
		o := Options{Addr: strings.TrimPrefix(ts.URL, "http://"), Queries: []string{"a"}, Mode: "and", Engine: "cpu",
			K: 10, NoSnippets: no, Concurrency: []int{1}, MaxRequests: 3}
		rep, err := Load(context.Background(), o)
		ts.Close()
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{false: "", true: "0"}[no]
		if s, _ := got.Load().(string); s != want || rep.Snippets == no {
			t.Errorf("NoSnippets %v: sent snippets=%q, report snippets %v; want %q, %v", no, s, rep.Snippets, want, !no)
		}
	}
}

// TestLoadMsearch checks that Msearch sends POST /msearch bodies of that
// many lines, each query in turn, that a failed line counts as an error,
// and that queries a second are requests a second times the batch.
func TestLoadMsearch(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/msearch" {
			http.Error(w, "want POST /msearch", http.StatusBadRequest)
			return
		}
		if strings.Contains(string(b), `"q":"bad"`) {
			w.Write([]byte(`{"took_us":3,"responses":[{"status":400,"error":"line 1: no"}]}`))
			return
		}
		w.Write([]byte(`{"took_us":7,"responses":[]}`))
	}))
	defer ts.Close()
	o := Options{Addr: strings.TrimPrefix(ts.URL, "http://"), Queries: []string{"a", "b", "c"}, Mode: "or", Engine: "gpu",
		K: 5, Concurrency: []int{1}, MaxRequests: 3, Msearch: 2}
	rep, err := Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"engine":"gpu","k":"5","mode":"or","q":"a"}` + "\n" + `{"engine":"gpu","k":"5","mode":"or","q":"b"}` + "\n",
		`{"engine":"gpu","k":"5","mode":"or","q":"c"}` + "\n" + `{"engine":"gpu","k":"5","mode":"or","q":"a"}` + "\n",
	}
	want = append(want, want[0])
	if !reflect.DeepEqual(bodies, want) {
		t.Errorf("bodies = %q, want %q", bodies, want)
	}
	run := rep.Runs[0]
	if rep.Msearch != 2 || run.Errors != 0 || run.Requests != 3 || run.ServerP50US != 7 || run.QueriesPerS != 2*run.QPS {
		t.Errorf("report %+v, run %+v: want msearch 2, 3 requests, server p50 7, queries/s twice requests/s", rep, run)
	}
	o.Queries = []string{"bad"}
	rep, err = Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if run := rep.Runs[0]; run.Errors != 3 || !strings.Contains(run.FirstError, "a line failed") {
		t.Errorf("run %+v: want 3 errors, a failed line", run)
	}
}

// TestExpect serves the answers of two indexes of the sample crawl (whole
// pages and 16-term passages) and, now and then, a wrong one (the first
// hit's score one float32 step lower): --expect counts each answer for the snapshot
// it equals and the wrong ones as mismatched.
func TestExpect(t *testing.T) {
	snaps := []*index.Index{
		testindex.Crawl(t, indexer.Options{Workers: 1}),
		testindex.Crawl(t, indexer.Options{Workers: 1, Passages: 16}),
	}
	queries := []string{"json", "http server", "file"} // each has hits in both
	var served atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		ix := snaps[n%2]
		q, err := query.Parse(analysis.New(), r.URL.Query().Get("q"), query.And, 10)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res, err := query.NewExhaustive(ix).Search(r.Context(), q)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		hits := make([]hit, len(res.Hits))
		for i, h := range res.Hits {
			hits[i] = hit{DocID: h.DocID, URL: ix.URL(h.DocID), Score: h.Score}
		}
		if n%5 == 0 {
			hits[0].Score = math.Nextafter32(hits[0].Score, 0)
		}
		json.NewEncoder(w).Encode(map[string]any{"took_us": 1, "hits": hits})
	}))
	defer ts.Close()
	f := Flags{Options: Options{Addr: strings.TrimPrefix(ts.URL, "http://"), Queries: queries, Mode: query.And, Engine: "cpu",
		K: 10, Concurrency: []int{1}, MaxRequests: 30, Expect: []string{snaps[0].Dir(), snaps[1].Dir()}}}
	rep, err := Load(context.Background(), f.Options)
	if err != nil {
		t.Fatal(err)
	}
	open := func(ix *index.Index, name string) (query.Engine, func(), error) {
		eng, err := query.New(ix, name)
		return eng, func() {}, err
	}
	c, err := rep.answers.check(context.Background(), f.Expect, f.Options, open)
	if err != nil {
		t.Fatal(err)
	}
	// Of 30 answers, 6 (every fifth) are wrong; of the rest, even
	// requests came from the whole pages, odd ones from the passages.
	if c.Mismatched != 6 || c.Matched[0] != 12 || c.Matched[1] != 12 || !strings.Contains(c.FirstMismatch, "answered") {
		t.Errorf("check = %+v, want 12 and 12 matched, 6 mismatched", c)
	}
	if c.Err() == nil || (&Check{Matched: []int64{30}}).Err() != nil {
		t.Errorf("Err: want an error for mismatches only")
	}
}
