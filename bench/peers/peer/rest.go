package peer

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gpusearch/gpusearch/bench/latency"
)

// RESTReport compares a running server's GET /search latency with snippets
// (the default) and without them (snippets=0), in microseconds of wall
// clock from sending the request to reading the whole answer, one request
// at a time over one keep-alive connection.
type RESTReport struct {
	Addr       string  `json:"addr"`
	Queries    int     `json:"queries"`
	Mode       string  `json:"mode"`
	K          int     `json:"k"`
	Passes     int     `json:"timed_passes"`
	WithP50US  float64 `json:"with_snippets_p50_us"`
	WithP99US  float64 `json:"with_snippets_p99_us"`
	NoneP50US  float64 `json:"without_snippets_p50_us"`
	NoneP99US  float64 `json:"without_snippets_p99_us"`
	AddedP50US float64 `json:"added_p50_us"` // WithP50US - NoneP50US
	WithBytes  int64   `json:"with_snippets_bytes"`
	NoneBytes  int64   `json:"without_snippets_bytes"`
	Machine    Machine `json:"machine"`
}

// REST sends every query to the server at addr with and without snippets,
// the two requests of a query back to back (in turn first), for warmup
// untimed passes and then repeat timed ones. Any answer but 200 is an error.
// Double quotes in the queries are dropped, as in Snippets.
// Serve with server.cache_entries: 0, else the cache answers repeats.
func REST(ctx context.Context, addr string, queries []string, mode string, k, warmup, repeat int) (*RESTReport, error) {
	client := &http.Client{Timeout: time.Minute}
	base := "http://" + addr + "/search?"
	get := func(q string, snippets bool) (time.Duration, int64, error) {
		v := url.Values{"q": {unquote(q)}, "mode": {mode}, "k": {strconv.Itoa(k)}, "engine": {"cpu"}}
		if !snippets {
			v.Set("snippets", "0")
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+v.Encode(), nil)
		if err != nil {
			return 0, 0, err
		}
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, 0, err
		}
		n, err := io.Copy(io.Discard, resp.Body)
		took := time.Since(t0)
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("peer: GET %s: %s", req.URL, resp.Status)
		}
		return took, n, err
	}
	repeat = max(repeat, 1)
	rep := &RESTReport{Addr: addr, Queries: len(queries), Mode: mode, K: k, Passes: repeat, Machine: ThisMachine()}
	var with, none []time.Duration
	for pass := range warmup + repeat {
		for i, q := range queries {
			order := []bool{true, false}
			if (i+pass)%2 == 1 {
				order = []bool{false, true}
			}
			for _, snippets := range order {
				took, n, err := get(q, snippets)
				if err != nil {
					return nil, err
				}
				if pass < warmup {
					continue
				}
				if snippets {
					with, rep.WithBytes = append(with, took), rep.WithBytes+n
				} else {
					none, rep.NoneBytes = append(none, took), rep.NoneBytes+n
				}
			}
		}
	}
	w, n := latency.Summarize(with), latency.Summarize(none)
	rep.WithP50US, rep.WithP99US, rep.NoneP50US, rep.NoneP99US = w.P50US, w.P99US, n.P50US, n.P99US
	rep.AddedP50US = w.P50US - n.P50US
	return rep, nil
}
