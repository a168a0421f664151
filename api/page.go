package api

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
)

//go:embed templates/search.html
var templates embed.FS

var styleElement = regexp.MustCompile(`(?s)<style>(.*?)</style>`)

// SearchPage is the server-rendered search page: its template and its
// Content-Security-Policy. A node (GET / of Server) and the broker
// (package broker) show their results with it.
type SearchPage struct {
	t   *template.Template
	csp string
}

// NewSearchPage parses the search page and makes its
// Content-Security-Policy: nothing but its one inline style (allowed by
// its hash, which cannot cover injected markup), no script, forms sent to
// this server only, and no page may frame it.
func NewSearchPage() (*SearchPage, error) {
	const name = "templates/search.html"
	t, err := template.ParseFS(templates, name)
	if err != nil {
		return nil, fmt.Errorf("api: search page template: %w", err)
	}
	src, err := templates.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("api: search page template: %w", err)
	}
	style := styleElement.FindSubmatch(src)
	if style == nil {
		return nil, fmt.Errorf("api: search page template: no <style> element")
	}
	sum := sha256.Sum256(style[1])
	csp := "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
	return &SearchPage{t: t, csp: csp}, nil
}

// Write answers d as the page with status: HTML, the page's
// Content-Security-Policy, and for a 200 a cache that must revalidate. An
// error is the connection's: the status is already sent.
func (p *SearchPage) Write(w http.ResponseWriter, status int, d PageData) error {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", p.csp)
	if status == http.StatusOK {
		h.Set("Cache-Control", cacheRevalidate)
	}
	w.WriteHeader(status)
	return p.t.Execute(w, d)
}

// PageModes are the query modes the search page offers.
var PageModes = []string{"andor", "and", "or"}

// PageEngines are the engines the search page offers.
var PageEngines = []string{"auto", "cpu", "gpu", "bitmap"}

// PageData is what the search page shows. html/template escapes every
// value for its context (text, attribute, URL).
type PageData struct {
	Q, Mode, Engine string // the request, as the form shows it
	K               int
	Modes, Engines  []string // the form's choices
	Err             string
	Searched        bool
	Hits            []PageHit
	First, Last     int // ranks, from 1
	TookUS          int64
	EngineUsed      string
	Cached          bool
	Prev, Next      string // paging links, "" when there is no such page
	// Shards and ShardsAnswered tell of a partial answer (the broker's):
	// hits from ShardsAnswered of Shards shards. Shards is 0 for a
	// complete answer.
	Shards, ShardsAnswered int
}

// PageHit is one result as the page shows it.
type PageHit struct {
	DocID   uint32
	URL     string
	Title   string // "" when the index stores none: the page shows the URL
	Score   string
	Snippet []SnippetPart
}

// SnippetPart is a run of a snippet's text, marked or not.
type SnippetPart struct {
	Text string
	Mark bool
}

// SnippetParts splits a hit's snippet at its highlights.
func SnippetParts(h Hit) []SnippetPart {
	var parts []SnippetPart
	at := 0
	for _, r := range h.Highlights {
		if at < r[0] {
			parts = append(parts, SnippetPart{Text: h.Snippet[at:r[0]]})
		}
		parts = append(parts, SnippetPart{Text: h.Snippet[r[0]:r[1]], Mark: true})
		at = r[1]
	}
	if at < len(h.Snippet) {
		parts = append(parts, SnippetPart{Text: h.Snippet[at:]})
	}
	return parts
}

// PeekK is how many hits a page of k from rank start asks for: one more
// than it shows, to know whether a next page exists, unless that would
// pass maxK (server.max_k), where no next page can be asked for.
func PeekK(start, k, maxK int) int {
	if start+k < maxK {
		return k + 1
	}
	return k
}

// SetResults fills d with the page of d.K results from rank start (from
// 0): hits is the answer from rank start to PeekK hits; maxK is
// server.max_k. The paging links keep d's query, mode and engine.
func (d *PageData) SetResults(hits []Hit, start, maxK int) {
	d.Searched = true
	if len(hits) > d.K {
		hits = hits[:d.K]
		next := start + d.K
		d.Next = d.pageURL(next, min(d.K, maxK-next))
	}
	if start > 0 {
		d.Prev = d.pageURL(max(0, start-d.K), d.K)
	}
	for _, h := range hits {
		d.Hits = append(d.Hits, PageHit{
			DocID: h.DocID, URL: h.URL, Title: h.Title,
			Score: strconv.FormatFloat(float64(h.Score), 'f', 4, 32), Snippet: SnippetParts(h),
		})
	}
	d.First, d.Last = start+1, start+len(hits)
}

// pageURL links to the k results of d's query from rank start (from 0).
func (d *PageData) pageURL(start, k int) string {
	v := url.Values{"q": {d.Q}, "mode": {d.Mode}, "engine": {d.Engine}, "k": {strconv.Itoa(k)}}
	if start > 0 {
		v.Set("start", strconv.Itoa(start))
	}
	return "/?" + v.Encode()
}

// handlePage serves the search form and, with q, one page of results.
func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	d := PageData{
		Q: r.URL.Query().Get("q"), Mode: s.cfg.Search.Mode, Engine: s.cfg.Search.Engine, K: s.cfg.Search.K,
		Modes: PageModes, Engines: PageEngines,
	}
	status := http.StatusOK
	if d.Q != "" {
		if err := s.pageSearch(r, &d); err != nil {
			status, d.Err = statusOf(err)
			if status >= 500 && status != http.StatusServiceUnavailable {
				s.log.Error("internal error", "err", err)
			}
		}
	}
	if err := s.page.Write(w, status, d); err != nil {
		s.log.Warn("writing the search page", "err", err)
	}
}

func (s *Server) pageSearch(r *http.Request, d *PageData) error {
	p, err := s.parseSearch(r.URL.RawQuery)
	if err != nil {
		return err
	}
	d.Mode, d.Engine, d.K = string(p.mode), p.engine, p.k
	more := p
	if more.k = PeekK(p.start, p.k, s.cfg.Server.MaxK); more.k > p.k {
		more.peek = true
	}
	resp, err := s.search(r.Context(), more)
	if err != nil {
		return err
	}
	d.TookUS, d.EngineUsed, d.Cached = resp.TookUS, resp.Engine, resp.Cached
	d.SetResults(resp.Hits, p.start, s.cfg.Server.MaxK)
	return nil
}
