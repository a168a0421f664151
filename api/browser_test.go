package api

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/testindex"
)

// submitPage is a test-only page, served beside the search page (same
// origin). It first tries to show the search page in a frame, which the
// page's X-Frame-Options and CSP refuse even to its own origin. It then
// opens the search page in a window of its own, types a query into its
// form and submits it as a user would; once the results load it copies
// them, and the URL the form produced, into its own DOM for --dump-dom.
const submitPage = `<!DOCTYPE html>
<html><body><iframe id="f" src="/"></iframe><div id="out"></div>
<script>
const out = document.getElementById('out');
const f = document.getElementById('f');
f.onload = () => {
  let framed = 'no';
  try { framed = f.contentDocument && f.contentDocument.querySelector('form') ? 'yes' : 'no'; } catch (e) {}
  out.setAttribute('data-framed', framed);
};
const w = window.open('/');
let submitted = false;
const poll = setInterval(() => {
  const d = w.document;
  if (d.readyState !== 'complete' || !d.getElementById('search')) {
    return;
  }
  if (!submitted) {
    submitted = true;
    d.querySelector('input[name=q]').value = 'alpha bravo';
    d.getElementById('search').requestSubmit();
    return;
  }
  if (!d.getElementById('summary')) {
    return;
  }
  clearInterval(poll);
  out.setAttribute('data-url', w.location.href);
  out.innerHTML = d.body.innerHTML;
}, 20);
</script></body></html>`

// chromiumBinary is the path of Chromium; the test is skipped without
// one (.ci/run installs it).
func chromiumBinary(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (Debian: apt-get install -y chromium); skipping a browser test")
	}
	return bin
}

// chromium runs headless Chromium with args and returns its stdout.
func chromium(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String()
}

var hitItem = regexp.MustCompile(`<li class="hit"><a href="(http://a\.test/doc\d+\.txt)">`)

// TestSearchPageBrowser loads the search page in headless Chromium,
// checks that no page can frame it, submits a query through its form, checks that the results appear, pages
// to the next results, and saves a screenshot of the results under
// $GPUSEARCH_ARTIFACTS (a temporary directory when unset).
func TestSearchPageBrowser(t *testing.T) {
	bin := chromiumBinary(t)
	s, err := New(Options{Config: testConfig(indexA)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mux := http.NewServeMux()
	mux.Handle("/", s.Handler())
	mux.HandleFunc("/test-submit", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(submitPage))
	})
	ts := httptest.NewServer(mux)
	defer ts.Close()

	form := chromium(t, bin, "--dump-dom", ts.URL+"/")
	for _, want := range []string{`<form id="search" method="get" action="/">`, `name="q"`, `<button type="submit">`} {
		if !strings.Contains(form, want) {
			t.Fatalf("search page DOM lacks %q:\n%s", want, form)
		}
	}

	dom := chromium(t, bin, "--virtual-time-budget=3000", "--disable-popup-blocking", "--dump-dom", ts.URL+"/test-submit")
	if !strings.Contains(dom, `data-framed="no"`) {
		t.Errorf("the search page was shown in a frame, or the frame never loaded:\n%s", dom)
	}
	m := regexp.MustCompile(`data-url="([^"]+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the form was not submitted, or its results did not load:\n%s", dom)
	}
	results := strings.ReplaceAll(m[1], "&amp;", "&")
	if !strings.Contains(results, "q=alpha+bravo") {
		t.Errorf("the form submitted %s, want q=alpha+bravo in it", results)
	}
	hits := hitItem.FindAllStringSubmatch(dom, -1)
	if len(hits) != 10 {
		t.Errorf("results page shows %d hits, want 10:\n%s", len(hits), dom)
	}
	for _, want := range []string{`id="summary"`, "Results 1 to 10", `id="next"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("results page lacks %q", want)
		}
	}

	// The next page continues the ranking: its hits are new ones.
	next := regexp.MustCompile(`<a id="next" href="([^"]+)"`).FindStringSubmatch(dom)
	if next == nil {
		t.Fatalf("results page has no next link:\n%s", dom)
	}
	page2 := chromium(t, bin, "--dump-dom", ts.URL+strings.ReplaceAll(next[1], "&amp;", "&"))
	if !strings.Contains(page2, "Results 11 to") || !strings.Contains(page2, `id="prev"`) {
		t.Errorf("next page lacks \"Results 11 to\" or a previous link:\n%s", page2)
	}
	for _, h := range hitItem.FindAllStringSubmatch(page2, -1) {
		for _, h1 := range hits {
			if h[1] == h1[1] {
				t.Errorf("%s is on pages 1 and 2", h[1])
			}
		}
	}

	screenshot(t, bin, "search-page-paging.png", results)
}

// screenshot saves a PNG of the page at url as name under
// $GPUSEARCH_ARTIFACTS (a temporary directory when unset) and logs where.
func screenshot(t *testing.T, bin, name, url string) {
	t.Helper()
	dir := os.Getenv("GPUSEARCH_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, name)
	chromium(t, bin, "--window-size=900,560", "--hide-scrollbars", "--screenshot="+shot, url)
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("screenshot %s: %v, %d bytes; want a PNG", shot, err, len(png))
	}
	t.Logf("screenshot of %s saved to %s", url, shot)
}

// TestSearchPageResultsBrowser shows results of the sample crawl's
// net/http pages, and a page whose title and text hold <script>, in
// headless Chromium: titles linked to their URLs, snippets with the
// matched words marked (a phrase's words only where they stand
// together), markup in titles and texts shown as text, and a screenshot
// of a phrase query's results (docs/search-page.png is one).
func TestSearchPageResultsBrowser(t *testing.T) {
	bin := chromiumBinary(t)
	crawl := testindex.HostileCrawl(t, t.TempDir())
	ix := filepath.Join(t.TempDir(), "index")
	opts := indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Workers: 1, Positions: true}
	if _, err := indexer.Build(context.Background(), crawl, ix, opts); err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, testConfig(ix))

	evil := chromium(t, bin, "--dump-dom", ts.URL+"/?q=alert+timeout&mode=and")
	for _, want := range []string{
		`<a href="http://pkg.go.dev/evil.html">&lt;script&gt;alert(1)&lt;/script&gt; server timeout</a>`,
		`&lt;script&gt;<mark>alert</mark>(2)&lt;/script&gt;`,
		"Results 1 to 1",
	} {
		if !strings.Contains(evil, want) {
			t.Errorf("results of alert timeout lack %q:\n%s", want, evil)
		}
	}
	if strings.Contains(evil, "<script") {
		t.Errorf("markup of a title or text became a script element:\n%s", evil)
	}

	phrase := ts.URL + "/?" + url.Values{"q": {`"request body"`}, "mode": {"and"}}.Encode()
	dom := chromium(t, bin, "--dump-dom", phrase)
	hits := regexp.MustCompile(`(?s)<li class="hit"><a href="(http://pkg\.go\.dev/net/http/[^"]+)">[^<]+</a>.*?</li>`).FindAllStringSubmatch(dom, -1)
	if len(hits) < 2 {
		t.Fatalf("%d results for %s, want several:\n%s", len(hits), phrase, dom)
	}
	pair := regexp.MustCompile(`(?i)<mark>request[^<]*</mark> <mark>bod[^<]*</mark>`) // stems: "request's bodies"
	request := regexp.MustCompile(`(?i)<mark>request`)
	for _, h := range hits {
		if n := len(pair.FindAllString(h[0], -1)); n == 0 || n != len(request.FindAllString(h[0], -1)) {
			t.Errorf("hit %s marks the phrase \"request body\" %d times, or request alone:\n%s", h[1], n, h[0])
		}
	}
	if !strings.Contains(dom, "Results 1 to ") {
		t.Errorf("results of %s lack their count:\n%s", phrase, dom)
	}
	phrase = ts.URL + "/?" + url.Values{"q": {`"request body" timeout`}, "mode": {"and"}}.Encode()
	screenshot(t, bin, "search-page.png", phrase)
}
