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

// parsePage parses the search page and makes its Content-Security-Policy:
// nothing but its one inline style (allowed by its hash, which cannot
// cover injected markup), no script, forms sent to this server only, and
// no page may frame it.
func parsePage() (*template.Template, string, error) {
	const name = "templates/search.html"
	t, err := template.ParseFS(templates, name)
	if err != nil {
		return nil, "", fmt.Errorf("api: search page template: %w", err)
	}
	src, err := templates.ReadFile(name)
	if err != nil {
		return nil, "", fmt.Errorf("api: search page template: %w", err)
	}
	style := styleElement.FindSubmatch(src)
	if style == nil {
		return nil, "", fmt.Errorf("api: search page template: no <style> element")
	}
	sum := sha256.Sum256(style[1])
	csp := "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
	return t, csp, nil
}

// pageData is what the search page template shows. html/template escapes
// every value for its context (text, attribute, URL).
type pageData struct {
	Q, Mode, Engine string
	K               int
	Modes, Engines  []string
	Err             string
	Searched        bool
	Hits            []pageHit
	First, Last     int // ranks, from 1
	TookUS          int64
	EngineUsed      string
	Cached          bool
	Prev, Next      string // paging links, "" when there is no such page
}

type pageHit struct {
	DocID   uint32
	URL     string
	Title   string // "" when the index stores none: the page shows the URL
	Score   string
	Snippet []snippetPart
}

// snippetPart is a run of a snippet's text, marked or not.
type snippetPart struct {
	Text string
	Mark bool
}

// snippetParts splits a hit's snippet at its highlights.
func snippetParts(h Hit) []snippetPart {
	var parts []snippetPart
	at := 0
	for _, r := range h.Highlights {
		if at < r[0] {
			parts = append(parts, snippetPart{Text: h.Snippet[at:r[0]]})
		}
		parts = append(parts, snippetPart{Text: h.Snippet[r[0]:r[1]], Mark: true})
		at = r[1]
	}
	if at < len(h.Snippet) {
		parts = append(parts, snippetPart{Text: h.Snippet[at:]})
	}
	return parts
}

// handlePage serves the search form and, with q, one page of results.
// Paging asks for one hit more than the page holds, to know whether a next
// page exists.
func (s *Server) handlePage(w http.ResponseWriter, r *http.Request) {
	d := pageData{
		Q: r.URL.Query().Get("q"), Mode: s.cfg.Search.Mode, Engine: s.cfg.Search.Engine, K: s.cfg.Search.K,
		Modes: []string{"andor", "and", "or"}, Engines: []string{"auto", "cpu", "gpu", "bitmap"},
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
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", s.pageCSP)
	if status == http.StatusOK {
		h.Set("Cache-Control", cacheRevalidate)
	}
	w.WriteHeader(status)
	if err := s.page.Execute(w, d); err != nil {
		s.log.Warn("writing the search page", "err", err)
	}
}

func (s *Server) pageSearch(r *http.Request, d *pageData) error {
	p, err := s.parseSearch(r.URL.RawQuery)
	if err != nil {
		return err
	}
	d.Mode, d.Engine, d.K = string(p.mode), p.engine, p.k
	more := p
	if p.start+p.k < s.cfg.Server.MaxK {
		more.k++
		more.peek = true
	}
	resp, err := s.search(r.Context(), more)
	if err != nil {
		return err
	}
	d.Searched, d.TookUS, d.EngineUsed, d.Cached = true, resp.TookUS, resp.Engine, resp.Cached
	hits := resp.Hits
	if len(hits) > p.k {
		hits = hits[:p.k]
		next := p.start + p.k
		d.Next = pageURL(p, next, min(p.k, s.cfg.Server.MaxK-next))
	}
	if p.start > 0 {
		d.Prev = pageURL(p, max(0, p.start-p.k), p.k)
	}
	for _, h := range hits {
		d.Hits = append(d.Hits, pageHit{
			DocID: h.DocID, URL: h.URL, Title: h.Title,
			Score: strconv.FormatFloat(float64(h.Score), 'f', 4, 32), Snippet: snippetParts(h),
		})
	}
	d.First, d.Last = p.start+1, p.start+len(hits)
	return nil
}

// pageURL links to the k results of p's query from rank start (from 0).
func pageURL(p searchParams, start, k int) string {
	v := url.Values{"q": {p.q}, "mode": {string(p.mode)}, "engine": {p.engine}, "k": {strconv.Itoa(k)}}
	if start > 0 {
		v.Set("start", strconv.Itoa(start))
	}
	return "/?" + v.Encode()
}
