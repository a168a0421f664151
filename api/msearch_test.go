package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// batchRecorder is a query.BatchEngine over a CPU engine that records the
// size of each SearchBatch call, and can fail them.
type batchRecorder struct {
	query.Engine
	fail    bool
	mu      sync.Mutex
	batches []int
}

func (b *batchRecorder) SearchBatch(ctx context.Context, qs []query.Query) ([]query.Result, error) {
	b.mu.Lock()
	b.batches = append(b.batches, len(qs))
	b.mu.Unlock()
	if b.fail {
		return nil, errors.New("batch refused")
	}
	rs := make([]query.Result, len(qs))
	for i, q := range qs {
		var err error
		if rs[i], err = b.Search(ctx, q); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// msearch POSTs body to ts's /msearch and returns the status and the
// decoded answer (empty unless 200).
func msearch(t *testing.T, c *http.Client, base, body string) (int, MsearchResponse, string) {
	t.Helper()
	status, b := do(t, c, http.MethodPost, base+"/msearch", body)
	var resp MsearchResponse
	if status == http.StatusOK {
		if err := json.Unmarshal([]byte(b), &resp); err != nil {
			t.Fatalf("decoding %q: %v", b, err)
		}
	}
	return status, resp, b
}

// TestMsearchMatchesSearch checks that every line answers what /search
// answers for the same parameters, that the lines of a batch engine go to
// it as one SearchBatch, and that a failing batch falls back to one query
// at a time.
func TestMsearchMatchesSearch(t *testing.T) {
	lines := []url.Values{
		{"q": {"alpha"}},
		{"q": {"bravo charlie"}, "mode": {"or"}, "k": {"7"}},
		{"q": {"golf hotel india"}, "mode": {"andor"}, "k": {"5"}, "start": {"2"}},
		{"q": {"jasper alpha"}, "mode": {"or"}, "snippets": {"0"}},
		{"q": {"delta echo"}, "mode": {"or"}, "highlight": {"html"}},
		{"q": {"alpha"}, "engine": {"cpu"}},
		{"q": {"\"alpha bravo\""}, "mode": {"or"}},
	}
	for _, fail := range []bool{false, true} {
		rec := &batchRecorder{fail: fail}
		cfg := testConfig(indexA)
		cfg.Server.CacheEntries = 0
		cfg.Search.Engine = "auto"
		s, err := New(Options{Config: cfg, Auto: func(_ *index.Index, cpu query.Engine, _ []query.Engine) query.Engine {
			rec.Engine = cpu
			return rec
		}})
		if err != nil {
			t.Fatal(err)
		}
		h := s.Handler()
		var body strings.Builder
		for _, v := range lines {
			obj := map[string]any{}
			for k := range v {
				obj[k] = v.Get(k)
			}
			b, _ := json.Marshal(obj)
			body.Write(append(b, '\n'))
		}
		ts := httptest.NewServer(h)
		defer ts.Close()
		status, got, raw := msearch(t, ts.Client(), ts.URL, body.String())
		if status != http.StatusOK || len(got.Responses) != len(lines) {
			t.Fatalf("fail=%v: /msearch = %d %s, want 200 with %d answers", fail, status, raw, len(lines))
		}
		for i, v := range lines {
			var want SearchResponse
			getJSON(t, ts.Client(), ts.URL+"/search?"+v.Encode(), &want)
			item := got.Responses[i]
			if item.Status != http.StatusOK || item.SearchResponse == nil {
				t.Fatalf("fail=%v line %d: %+v, want 200", fail, i+1, item)
			}
			gotResp := *item.SearchResponse
			gotResp.TookUS, want.TookUS = 0, 0
			gotResp.Stats.Took, want.Stats.Took = 0, 0
			if !reflect.DeepEqual(gotResp, want) {
				t.Errorf("fail=%v line %d (%s):\n got %+v\nwant %+v", fail, i+1, v.Encode(), gotResp, want)
			}
		}
		// Six lines ask for auto (the default); the cpu line runs alone.
		// The /search requests above are single queries: no batch.
		if len(rec.batches) == 0 || rec.batches[0] != 6 {
			t.Errorf("fail=%v: SearchBatch sizes %v, want a first batch of 6", fail, rec.batches)
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}
}

// TestMsearchLines checks that each line is answered on its own: bad
// lines get the status /search would give, or 400 for what only a line
// can get wrong, and the good lines beside them are answered.
func TestMsearchLines(t *testing.T) {
	_, ts := newTestServer(t, testConfig(indexA))
	tests := []struct {
		name string
		body string
		want []int // each line's status
		msg  []string
	}{
		{"one", `{"q":"alpha"}`, []int{200}, nil},
		{"numbers and strings", "{\"q\":\"alpha\",\"k\":3}\n{\"q\":\"alpha\",\"k\":\"3\",\"start\":1}\n", []int{200, 200}, nil},
		{"blank lines and CRLF", "\r\n{\"q\":\"alpha\"}\r\n\n  \n{\"q\":\"bravo\"}", []int{200, 200}, nil},
		{"boolean and null", `{"q":"alpha","snippets":false,"highlight":null}`, []int{200}, nil},
		{"not JSON", "{\"q\":\"alpha\"}\nq=alpha\n{\"q\":\"bravo\"}", []int{200, 400, 200}, []string{"", "line 2: want a JSON object", ""}},
		{"not an object", `["alpha"]`, []int{400}, []string{"line 1: want a JSON object"}},
		{"truncated", `{"q":"alp`, []int{400}, []string{"want a JSON object"}},
		{"unknown field", `{"q":"alpha","size":3}`, []int{400}, []string{`unknown field "size"`}},
		{"nested value", `{"q":{"match":"alpha"}}`, []int{400}, []string{`field "q": want a string`}},
		{"missing q", `{"mode":"or"}`, []int{400}, []string{"missing parameter q"}},
		{"bad mode", `{"q":"alpha","mode":"xor"}`, []int{400}, []string{`mode "xor"`}},
		{"k over max", `{"q":"alpha","k":100000}`, []int{400}, []string{"max_k"}},
		{"fractional k", `{"q":"alpha","k":2.5}`, []int{400}, []string{"want an integer"}},
		{"unknown engine", `{"q":"alpha","engine":"nope"}`, []int{400}, []string{`engine "nope"`}},
		{"gpu absent", `{"q":"alpha","engine":"gpu"}`, []int{503}, []string{"engine gpu unavailable"}},
		{"mixed", "{\"q\":\"alpha\"}\n{\"k\":1}\n{\"q\":\"echo\",\"mode\":\"or\"}\n{\"q\":\"alpha\",\"start\":-1}",
			[]int{200, 400, 200, 400}, []string{"", "line 2: missing parameter q", "", "line 4: start=-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, got, raw := msearch(t, ts.Client(), ts.URL, tc.body)
			if status != http.StatusOK {
				t.Fatalf("/msearch = %d %s, want 200", status, raw)
			}
			if len(got.Responses) != len(tc.want) {
				t.Fatalf("%d answers, want %d: %s", len(got.Responses), len(tc.want), raw)
			}
			for i, item := range got.Responses {
				if item.Status != tc.want[i] {
					t.Errorf("line %d: status %d (%s), want %d", i+1, item.Status, item.Error, tc.want[i])
				}
				if (item.SearchResponse != nil) != (item.Status == 200) || (item.Error == "") != (item.Status == 200) {
					t.Errorf("line %d: %+v: want hits for 200, an error otherwise", i+1, item)
				}
				if i < len(tc.msg) && !strings.Contains(item.Error, tc.msg[i]) {
					t.Errorf("line %d: error %q, want it to contain %q", i+1, item.Error, tc.msg[i])
				}
			}
		})
	}
}

// TestMsearchLimits checks the refusals of a whole request: too large,
// too many lines, nothing in it, the wrong method.
func TestMsearchLimits(t *testing.T) {
	cfg := testConfig(indexA)
	cfg.Server.MsearchMaxLines = 3
	cfg.Server.MsearchMaxBytes = 200
	_, ts := newTestServer(t, cfg)
	line := "{\"q\":\"alpha\"}\n"
	tests := []struct {
		name, method, body string
		status             int
		msg                string
	}{
		{"at the line limit", http.MethodPost, strings.Repeat(line, 3), 200, ""},
		{"blank lines do not count", http.MethodPost, strings.Repeat(line+"\n\n", 3), 200, ""},
		{"over the line limit", http.MethodPost, strings.Repeat(line, 4), 413, "msearch_max_lines=3"},
		{"over the byte limit", http.MethodPost, strings.Repeat(" ", 190) + strings.Repeat(line, 2), 413, "msearch_max_bytes=200"},
		{"over max_body_bytes", http.MethodPost, strings.Repeat(" ", 2<<20), 413, "max_body_bytes"},
		{"empty", http.MethodPost, "", 400, "empty request"},
		{"only blank lines", http.MethodPost, "\n \r\n\n", 400, "empty request"},
		{"GET", http.MethodGet, "", 405, "not allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := do(t, ts.Client(), tc.method, ts.URL+"/msearch", tc.body)
			if status != tc.status || !strings.Contains(body, tc.msg) {
				t.Errorf("%s /msearch = %d %s, want %d containing %q", tc.method, status, body, tc.status, tc.msg)
			}
		})
	}
}

// FuzzMsearchValues checks that no line makes the parser panic, and that
// what it accepts /search's parser reads.
func FuzzMsearchValues(f *testing.F) {
	for _, s := range []string{`{"q":"a"}`, `{"k":1e400}`, `{"q":null}`, `[1]`, `{"q":"\u0000"}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		v, err := MsearchValues(line)
		if err != nil {
			return
		}
		if _, err := url.ParseQuery(v.Encode()); err != nil {
			t.Errorf("MsearchValues(%q) = %q, which does not parse: %v", line, v.Encode(), err)
		}
	})
}
