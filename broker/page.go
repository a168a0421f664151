package broker

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/gpusearch/gpusearch/api"
)

// handlePage serves the node's search page (api.SearchPage) over the
// broker's merged search: the same form, hits and paging, and a line
// saying how many shards answered when the answer is partial.
func (b *Broker) handlePage(w http.ResponseWriter, r *http.Request) {
	d := api.PageData{
		Mode: b.full.Search.Mode, Engine: b.full.Search.Engine, K: b.full.Search.K,
		Modes: api.PageModes, Engines: api.PageEngines,
	}
	status := http.StatusOK
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		err = errorf(http.StatusBadRequest, "bad query string: %v", err)
	} else if d.Q = v.Get("q"); d.Q != "" {
		err = b.pageSearch(r.Context(), v, &d)
	}
	if err != nil {
		status, d.Err = b.statusOf(err)
	}
	if err := b.page.Write(w, status, d); err != nil {
		b.log.Warn("writing the search page", "err", err)
	}
}

// pageSearch fills d with the page of results v asks for, asking the
// shards for one hit more than the page shows to know whether a next
// page exists.
func (b *Broker) pageSearch(ctx context.Context, v url.Values, d *api.PageData) error {
	p, err := b.parse(v)
	if err != nil {
		return err
	}
	d.Mode, d.K = string(p.mode), p.k
	if p.engine != "" {
		d.Engine = p.engine
	}
	maxK := b.full.Server.MaxK
	more := p
	more.k = api.PeekK(p.start, p.k, maxK)
	shards := len(b.table.Load().shards)
	resp, err := b.search(ctx, more)
	if err != nil {
		return err
	}
	d.TookUS, d.EngineUsed, d.Cached = resp.TookUS, resp.Engine, resp.Cached
	if resp.Partial {
		// The routing table may have changed under the search: the
		// missing shards' numbers still bound how many there were.
		shards = max(shards, resp.MissingShards[len(resp.MissingShards)-1]+1)
		d.Shards, d.ShardsAnswered = shards, shards-len(resp.MissingShards)
	}
	d.SetResults(resp.Hits, p.start, maxK)
	return nil
}

// statusOf is err's status and the message an answer shows: an
// httpError's own, else 500 and "internal error" (err is logged).
func (b *Broker) statusOf(err error) (int, string) {
	var he *httpError
	if errors.As(err, &he) {
		return he.status, he.msg
	}
	b.log.Error("internal error", "err", err)
	return http.StatusInternalServerError, "internal error"
}
