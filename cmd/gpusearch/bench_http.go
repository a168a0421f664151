package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

func init() { benchSubcommands = append(benchSubcommands, newBenchHTTPCmd) }

// benchHTTPFlags are `bench http`'s options.
type benchHTTPFlags struct {
	addr, queries, mode, engine, index string
	k                                  int
	concurrency                        []int
	duration, warmup                   time.Duration
	maxRequests                        int64
	json                               bool
}

// httpBenchReport is what `bench http --json` prints.
type httpBenchReport struct {
	Addr        string          `json:"addr"`
	Queries     int             `json:"queries"` // distinct queries, sent round-robin
	Mode        string          `json:"mode"`
	Engine      string          `json:"engine"`
	K           int             `json:"k"`
	Runs        []httpBenchRun  `json:"runs"`
	InProcess   *latencySummary `json:"in_process,omitempty"`                    // same queries, same engine, no HTTP, one at a time
	OverheadP50 float64         `json:"overhead_vs_in_process_p50_us,omitempty"` // concurrency-1 p50 - in-process p50
}

// httpBenchRun is one closed-loop run at a fixed concurrency.
type httpBenchRun struct {
	Concurrency int     `json:"concurrency"`
	Seconds     float64 `json:"seconds"`
	Errors      int64   `json:"errors"`
	FirstError  string  `json:"first_error,omitempty"`
	QPS         float64 `json:"qps"` // successful requests per second
	latencySummary
	// ServerP50US is the p50 of the answers' took_us, the time the server
	// spent inside the search (analysis, cache, engine, URLs), and
	// OverheadP50US the p50 of each request's latency minus its took_us:
	// HTTP, routing, parameters, JSON, logs and metrics, on both sides.
	ServerP50US   float64 `json:"server_p50_us"`
	OverheadP50US float64 `json:"overhead_p50_us"`
}

// latencySummary describes a set of successful request latencies.
type latencySummary struct {
	Requests int64   `json:"requests"`
	MeanUS   float64 `json:"mean_us"`
	P50US    float64 `json:"p50_us"`
	P90US    float64 `json:"p90_us"`
	P99US    float64 `json:"p99_us"`
	MaxUS    float64 `json:"max_us"`
}

func newBenchHTTPCmd() *cobra.Command {
	var f benchHTTPFlags
	cmd := &cobra.Command{
		Use:   "http --addr HOST:PORT --queries FILE [--concurrency N,...] [--duration D] [--max-requests N] [--json]",
		Short: "Closed-loop HTTP load on a running `gpusearch serve`: queries/s and latency percentiles",
		Long: `Each of N workers sends GET /search for the next query of FILE (round-robin,
one query per line, optionally "qid<TAB>text") and waits for the answer
before sending the next, for --duration or until --max-requests answers.
A run per --concurrency value, each after a --warmup at that concurrency.
With --index, the same queries also run in this process on the same engine
over that index (analysis, search, URLs; one at a time, after the same
warm-up), and the report
gives the HTTP overhead at p50 (the concurrency-1 run's p50 minus the
in-process p50). Each run also reports the p50 of latency minus the
took_us the server put in the answer, the overhead measured request by
request. Serve with server.cache_entries: 0 to measure the engine
rather than the result cache.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.queries == "" {
				return usagef("--queries is required")
			}
			if f.duration <= 0 && f.maxRequests <= 0 {
				return usagef("need a positive --duration or --max-requests")
			}
			if f.k <= 0 {
				return usagef("--k must be positive")
			}
			mode, err := query.ParseMode(f.mode)
			if err != nil {
				return usageError{err}
			}
			for _, c := range f.concurrency {
				if c <= 0 {
					return usagef("--concurrency %d: must be positive", c)
				}
			}
			queries, err := readBenchHTTPQueries(f.queries)
			if err != nil {
				return err
			}
			rep := httpBenchReport{Addr: f.addr, Queries: len(queries), Mode: string(mode), Engine: f.engine, K: f.k}
			base := "http://" + f.addr + "/search?"
			urls := make([]string, len(queries))
			for i, q := range queries {
				urls[i] = base + url.Values{"q": {q}, "mode": {string(mode)}, "k": {strconv.Itoa(f.k)}, "engine": {f.engine}}.Encode()
			}
			ctx := cmd.Context()
			for _, c := range f.concurrency {
				if f.warmup > 0 {
					httpLoad(ctx, urls, c, f.warmup, 0)
				}
				run := httpLoad(ctx, urls, c, f.duration, f.maxRequests)
				if err := ctx.Err(); err != nil {
					return err
				}
				fmt.Fprintf(os.Stderr, "concurrency %3d: %8.0f q/s  p50 %7.0fus  p99 %7.0fus  server p50 %6.0fus  overhead p50 %5.0fus  (%d requests, %d errors)\n",
					c, run.QPS, run.P50US, run.P99US, run.ServerP50US, run.OverheadP50US, run.Requests, run.Errors)
				rep.Runs = append(rep.Runs, run)
			}
			if f.index != "" {
				cfg, err := loadConfig(cmd)
				if err != nil {
					return err
				}
				in, err := inProcessLatency(ctx, f.index, cfg.GPU, f.engine, queries, mode, f.k, f.warmup, f.duration, f.maxRequests)
				if err != nil {
					return err
				}
				rep.InProcess = &in
				fmt.Fprintf(os.Stderr, "in process     : p50 %7.1fus  p99 %7.1fus  (%d queries)\n", in.P50US, in.P99US, in.Requests)
				for _, r := range rep.Runs {
					if r.Concurrency == 1 {
						rep.OverheadP50 = r.P50US - in.P50US
						fmt.Fprintf(os.Stderr, "HTTP overhead at p50: %.1fus\n", rep.OverheadP50)
					}
				}
			}
			if f.json {
				return writeJSON(os.Stdout, rep)
			}
			return nil
		},
	}
	addConfigFlag(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address of the server, HOST:PORT")
	fl.StringVar(&f.queries, "queries", "", "queries file: one per line, optionally qid<TAB>text")
	fl.IntSliceVar(&f.concurrency, "concurrency", []int{1}, "concurrent workers; a list runs once per value, e.g. 1,4,16,64")
	fl.DurationVar(&f.duration, "duration", 10*time.Second, "length of each run (0: until --max-requests)")
	fl.DurationVar(&f.warmup, "warmup", time.Second, "unmeasured load before each run")
	fl.Int64Var(&f.maxRequests, "max-requests", 0, "stop each run after this many requests (0: no bound)")
	fl.StringVar(&f.mode, "mode", "andor", "query mode: and, or or andor")
	fl.IntVar(&f.k, "k", 10, "results per query")
	fl.StringVar(&f.engine, "engine", "cpu", "engine the server is asked for (and the in-process one)")
	fl.StringVar(&f.index, "index", "", "also run the queries in process over this index, to measure the HTTP overhead")
	fl.BoolVar(&f.json, "json", false, "print the report as JSON on stdout")
	return cmd
}

// readBenchHTTPQueries reads a queries file's texts (readQueries).
func readBenchHTTPQueries(path string) ([]string, error) {
	lines, err := readQueries(path)
	if err != nil {
		return nil, err
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

// httpLoad runs a closed loop of conc workers over urls (round-robin) until
// d has passed (d > 0) or max requests were sent (max > 0), or ctx ends.
func httpLoad(ctx context.Context, urls []string, conc int, d time.Duration, max int64) httpBenchRun {
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
	run := httpBenchRun{Concurrency: conc}
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
				t, err := httpGet(ctx, client, urls[(n-1)%int64(len(urls))])
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
	run.latencySummary = summarizeLatencies(slices.Concat(lat...))
	run.ServerP50US = summarizeLatencies(slices.Concat(took...)).P50US
	run.OverheadP50US = summarizeLatencies(slices.Concat(over...)).P50US
	if run.Seconds > 0 {
		run.QPS = float64(run.Requests) / run.Seconds
	}
	return run
}

// tookField precedes the server's time in a /search answer.
var tookField = []byte(`"took_us":`)

// httpGet fetches u, reads the whole answer, and returns the took_us it
// reports (0 when absent); anything but 200 is an error.
func httpGet(ctx context.Context, c *http.Client, u string) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s: %s", u, resp.Status, strings.TrimSpace(string(body)))
	}
	var took int64
	if i := bytes.Index(body, tookField); i >= 0 {
		rest := body[i+len(tookField):]
		for _, c := range rest {
			if c < '0' || c > '9' {
				break
			}
			took = took*10 + int64(c-'0')
		}
	}
	return time.Duration(took) * time.Microsecond, nil
}

// inProcessLatency times the work a search request does inside the server
// (analysis, the engine, the URLs of the hits) with no HTTP, one query at
// a time over the same queries: unmeasured for warmup (which also faults
// this process's mapping of the index in, as the server's already is),
// then bounded like a run.
func inProcessLatency(ctx context.Context, dir string, gpuCfg config.GPU, engine string, queries []string, mode query.Mode, k int, warmup, d time.Duration, max int64) (latencySummary, error) {
	ix, err := index.Open(dir)
	if err != nil {
		return latencySummary{}, err
	}
	defer ix.Close()
	eng, closeEngine, err := openEngine(ix, gpuCfg, engine)
	if err != nil {
		return latencySummary{}, err
	}
	defer closeEngine()
	a := analysis.New()
	loop := func(d time.Duration, max int64) ([]time.Duration, error) {
		var lat []time.Duration
		end := time.Now().Add(d)
		for i := 0; (d <= 0 || time.Now().Before(end)) && (max <= 0 || int64(i) < max); i++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t0 := time.Now()
			res, err := eng.Search(ctx, query.Parse(a, queries[i%len(queries)], mode, k))
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
	if warmup > 0 {
		if _, err := loop(warmup, 0); err != nil {
			return latencySummary{}, err
		}
	}
	lat, err := loop(d, max)
	if err != nil {
		return latencySummary{}, err
	}
	return summarizeLatencies(lat), nil
}

// summarizeLatencies gives nearest-rank percentiles in microseconds.
func summarizeLatencies(d []time.Duration) latencySummary {
	s := latencySummary{Requests: int64(len(d))}
	if len(d) == 0 {
		return s
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	us := func(x time.Duration) float64 { return float64(x) / float64(time.Microsecond) }
	pct := func(p float64) float64 { return us(d[int(math.Ceil(p*float64(len(d))))-1]) }
	s.MeanUS = us(sum) / float64(len(d))
	s.P50US, s.P90US, s.P99US, s.MaxUS = pct(0.50), pct(0.90), pct(0.99), us(d[len(d)-1])
	return s
}
