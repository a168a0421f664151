package httpload

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/bench/args"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// Check is what --expect found: how many answers equalled the answers of
// each snapshot, and how many equalled none. A server that switches
// generations atomically answers every query as one of the commits it
// served did; an answer that matches none is mixed or wrong.
type Check struct {
	Snapshots []string `json:"snapshots"`
	// Matched counts, per snapshot, the answers that equal its answer to
	// the same query (an answer that equals several snapshots' counts for
	// the first).
	Matched       []int64 `json:"matched"`
	Mismatched    int64   `json:"mismatched"`
	FirstMismatch string  `json:"first_mismatch,omitempty"`
}

// answers records the distinct answers the server gave to each query, as
// the digests of their hits, with how often each came.
type answers struct {
	mu      sync.Mutex
	byQuery []map[string]int64
}

func newAnswers(queries int) *answers {
	return &answers{byQuery: make([]map[string]int64, queries)}
}

// record notes the answer body of a GET /search for query q.
func (a *answers) record(q int, body []byte) error {
	var resp struct {
		Hits []hit `json:"hits"`
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return fmt.Errorf("the answer to query %d: %w", q, err)
	}
	d := digest(resp.Hits)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byQuery[q] == nil {
		a.byQuery[q] = map[string]int64{}
	}
	a.byQuery[q][d]++
	return nil
}

// hit is what an answer must agree on: the document, its URL and its
// score, bit for bit (float32 survives JSON's shortest decimal form).
type hit struct {
	DocID uint32  `json:"docid"`
	URL   string  `json:"url"`
	Score float32 `json:"score"`
}

// digest writes hits as one comparable string.
func digest(hits []hit) string {
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%d %q %08x\n", h.DocID, h.URL, math.Float32bits(h.Score))
	}
	return b.String()
}

// expected computes, on the CPU engine over the index in dir, the digest
// of its answer to each query.
func expected(ctx context.Context, dir string, o Options, open args.OpenFunc) ([]string, error) {
	ix, err := index.Open(dir)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	eng, closeEngine, err := open(ix, "cpu")
	if err != nil {
		return nil, err
	}
	defer closeEngine()
	a := analysis.New()
	out := make([]string, len(o.Queries))
	for i, text := range o.Queries {
		q, err := query.Parse(a, text, o.Mode, o.K)
		if err != nil {
			return nil, fmt.Errorf("query %q: %w", text, err)
		}
		res, err := eng.Search(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("%s: query %q: %w", dir, text, err)
		}
		hits := make([]hit, len(res.Hits))
		for j, h := range res.Hits {
			hits[j] = hit{DocID: h.DocID, URL: ix.URL(h.DocID), Score: h.Score}
		}
		out[i] = digest(hits)
	}
	return out, nil
}

// check compares the recorded answers with each snapshot's.
func (a *answers) check(ctx context.Context, snapshots []string, o Options, open args.OpenFunc) (*Check, error) {
	want := make([][]string, len(snapshots))
	for s, dir := range snapshots {
		var err error
		if want[s], err = expected(ctx, dir, o, open); err != nil {
			return nil, err
		}
	}
	c := &Check{Snapshots: snapshots, Matched: make([]int64, len(snapshots))}
	for q, got := range a.byQuery {
		for _, d := range slices.Sorted(maps.Keys(got)) {
			s := slices.IndexFunc(want, func(w []string) bool { return w[q] == d })
			if s >= 0 {
				c.Matched[s] += got[d]
				continue
			}
			c.Mismatched += got[d]
			if c.FirstMismatch == "" {
				c.FirstMismatch = fmt.Sprintf("query %q: answered\n%s", o.Queries[q], d)
			}
		}
	}
	return c, nil
}

// Err is an error when an answer matched no snapshot.
func (c *Check) Err() error {
	if c == nil || c.Mismatched == 0 {
		return nil
	}
	return fmt.Errorf("%d answers equal no snapshot's (mixed or wrong); the first: %s", c.Mismatched, c.FirstMismatch)
}
