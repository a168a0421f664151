package broker_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/internal/testindex"
)

var (
	hitList  = regexp.MustCompile(`(?s)<ol id="hits".*?</ol>`)
	hitURL   = regexp.MustCompile(`<li class="hit"><a href="([^"]+)"`)
	nextLink = regexp.MustCompile(`<a id="next" href="([^"]+)"`)
)

// TestClusterSearchPage: the broker's search page over three shards of
// the sample crawl's net/http pages and a page whose title holds
// <script> shows the single index's page's hits, in order, with their
// titles, snippets and scores; pages on through its links as the single
// index's does; escapes markup; sends the page's CSP; and says so when a
// shard is missing.
func TestClusterSearchPage(t *testing.T) {
	root := t.TempDir()
	crawl := testindex.HostileCrawl(t, root)
	whole, dirs, _, err := indexAndSplit(crawl, root, 3)
	if err != nil {
		t.Fatal(err)
	}
	c := startClusterOf(t, whole, dirs, 1, 0)
	bro, ref := c.broker.srv.URL, c.ref.URL

	// The same hits, in order, page after page: each page's list of hits
	// (URLs, titles, snippets, scores, docids) is the single index's.
	for _, tc := range []struct {
		q, mode string
		k       int
	}{
		{"server timeout", "or", 10},
		{`"request body"`, "and", 4},
		{"header cookie", "andor", 7},
	} {
		path := "/?" + url.Values{"q": {tc.q}, "mode": {tc.mode}, "k": {strconv.Itoa(tc.k)}}.Encode()
		var seen []string // the hits' URLs, page after page
		for page := 1; path != ""; page++ {
			status, got, h := pageGet(t, bro+path)
			wantStatus, want, wantH := pageGet(t, ref+path)
			if status != http.StatusOK || wantStatus != http.StatusOK {
				t.Fatalf("%s: broker %d, single index %d:\n%s", path, status, wantStatus, got)
			}
			if ct := h.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("%s: Content-Type %q", path, ct)
			}
			if csp := h.Get("Content-Security-Policy"); csp == "" || csp != wantH.Get("Content-Security-Policy") {
				t.Errorf("%s: Content-Security-Policy %q, want the node's %q", path, csp, wantH.Get("Content-Security-Policy"))
			}
			gotList, wantList := hitList.FindString(got), hitList.FindString(want)
			if wantList == "" || gotList != wantList {
				t.Fatalf("%s: broker's hits\n%s\nwant the single index's\n%s", path, gotList, wantList)
			}
			if strings.Contains(got, `id="partial"`) {
				t.Errorf("%s: a complete answer says it is partial", path)
			}
			for _, u := range hitURL.FindAllStringSubmatch(gotList, -1) {
				seen = append(seen, u[1])
			}
			next, wantNext := nextLink.FindStringSubmatch(got), nextLink.FindStringSubmatch(want)
			if (next == nil) != (wantNext == nil) || (next != nil && next[1] != wantNext[1]) {
				t.Fatalf("%s: next link %q, want %q", path, next, wantNext)
			}
			if page > 1 && !strings.Contains(got, `id="prev"`) {
				t.Errorf("%s: page %d has no previous link", path, page)
			}
			path = ""
			if next != nil {
				path = html.UnescapeString(next[1])
			}
		}
		shown := map[string]bool{}
		for _, u := range seen {
			if shown[u] {
				t.Errorf("%s %s: %s is on two pages", tc.q, tc.mode, u)
			}
			shown[u] = true
		}
		if len(seen) <= tc.k {
			t.Errorf("%s %s: %d hits, want more than a page of %d", tc.q, tc.mode, len(seen), tc.k)
		}
	}

	// Markup in a title or text is shown as text.
	status, evil, _ := pageGet(t, bro+"/?q=alert+timeout&mode=and")
	for _, want := range []string{
		`<a href="http://pkg.go.dev/evil.html">&lt;script&gt;alert(1)&lt;/script&gt; server timeout</a>`,
		`&lt;script&gt;<mark>alert</mark>(2)&lt;/script&gt;`,
		"Results 1 to 1 ",
	} {
		if status != http.StatusOK || !strings.Contains(evil, want) {
			t.Errorf("broker's page for alert timeout (%d) lacks %q:\n%s", status, want, evil)
		}
	}
	if strings.Contains(evil, "<script") {
		t.Errorf("markup of a title or text became a script element:\n%s", evil)
	}

	// A request the broker refuses is shown on the page, with its status.
	if status, body, _ := pageGet(t, bro+"/?q=x&k=0"); status != http.StatusBadRequest || !strings.Contains(body, `id="error"`) {
		t.Errorf("k=0: %d, want 400 and the error on the page:\n%s", status, body)
	}

	// One shard down: the page shows the others' hits and says so.
	c.nodes[1][0].kill()
	status, body, _ := pageGet(t, bro+"/?q=server+timeout&mode=or")
	if status != http.StatusOK || !strings.Contains(body, `id="partial"`) || !strings.Contains(body, "from 2 of 3 shards") ||
		!hitURL.MatchString(body) {
		t.Errorf("one shard down: %d, want 200 with hits and \"from 2 of 3 shards\":\n%s", status, body)
	}
}
