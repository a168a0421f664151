package api

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/config"
)

// TestAdminAccess checks who may reload: only a request carrying the
// configured token, with a JSON body, from no other origin, and only when
// the admin route is on. A refused request leaves the index as it was.
func TestAdminAccess(t *testing.T) {
	off := testConfig(indexA)
	off.Server.AdminReload = false
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("  file-token-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fromFile := testConfig(indexA)
	fromFile.Server.AdminToken, fromFile.Server.AdminTokenFile = "", tokenFile
	servers := map[string]config.Config{"on": testConfig(indexA), "off": off, "file": fromFile}

	tests := []struct {
		name   string
		srv    string
		header map[string]string // over adminHeader(); "" removes a header
		status int
		want   string
	}{
		{"token and JSON", "on", nil, 200, `"docs":150`},
		{"JSON with a charset", "on", map[string]string{"Content-Type": "application/json; charset=utf-8"}, 200, `"docs":150`},
		{"admin off", "off", nil, 403, "server.admin_reload"},
		{"admin off, no token", "off", map[string]string{"Authorization": ""}, 403, "server.admin_reload"},
		{"no token", "on", map[string]string{"Authorization": ""}, 401, "Authorization: Bearer"},
		{"wrong token", "on", map[string]string{"Authorization": "Bearer test-token-0123456780"}, 401, "token"},
		{"short token", "on", map[string]string{"Authorization": "Bearer test"}, 401, "token"},
		{"token as basic", "on", map[string]string{"Authorization": "Basic " + testToken}, 401, "Bearer"},
		{"no content type", "on", map[string]string{"Content-Type": ""}, 415, "application/json"},
		{"text/plain", "on", map[string]string{"Content-Type": "text/plain"}, 415, "application/json"},
		{"form", "on", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "application/json"},
		{"other origin", "on", map[string]string{"Origin": "http://evil.example"}, 403, "Origin"},
		{"null origin", "on", map[string]string{"Origin": "null"}, 403, "Origin"},
		{"token file", "file", map[string]string{"Authorization": "Bearer file-token-0123456789"}, 200, `"docs":150`},
		{"token file, config token", "file", nil, 401, "token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ts := newTestServer(t, servers[tt.srv])
			req := adminRequest(ts.URL+"/admin/reload", `{}`)
			for k, v := range tt.header {
				if v == "" {
					req.Header.Del(k)
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.want) {
				t.Fatalf("POST /admin/reload = %d %s, want %d with %q", resp.StatusCode, body, tt.status, tt.want)
			}
			wantReloads := int64(0)
			if tt.status == 200 {
				wantReloads = 1
			} else {
				checkJSONError(t, resp, string(body))
			}
			if n := s.reloads.Load(); n != wantReloads {
				t.Errorf("reloads = %d, want %d", n, wantReloads)
			}
			if tt.status == 401 && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("401 without WWW-Authenticate: Bearer (%q)", resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
}

// TestAdminTokenFileErrors checks that a server whose token file is
// missing or empty does not start.
func TestAdminTokenFileErrors(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	short := filepath.Join(t.TempDir(), "short")
	for path, body := range map[string]string{empty: " \n", short: "abc\n"} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ file, want string }{
		{filepath.Join(t.TempDir(), "none"), "admin_token_file"},
		{empty, "admin_token_file"},
		{short, "at least 16"},
	} {
		cfg := testConfig(indexA)
		cfg.Server.AdminToken, cfg.Server.AdminTokenFile = "", tt.file
		if _, err := New(Options{Config: cfg}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New with admin_token_file %s = %v, want an error naming %q", tt.file, err, tt.want)
		}
	}
}

// checkJSONError fails the test unless an error answer is JSON
// {"error": ...} that must not be stored.
func checkJSONError(t *testing.T, resp *http.Response, body string) {
	t.Helper()
	var e ErrorResponse
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error == "" {
		t.Errorf("error body %q (%v), want JSON {\"error\": ...}", body, err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error Content-Type = %q, want application/json", ct)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("error Cache-Control = %q, want no-store", cc)
	}
}

// TestHostCheck checks the Host header against the names the server
// answers to: a page of another name (DNS rebinding) gets 421.
func TestHostCheck(t *testing.T) {
	conf := func(addr string, hosts ...string) config.Config {
		c := testConfig(indexA)
		c.Server.Addr, c.Server.Hosts = addr, hosts
		return c
	}
	servers := map[string]config.Config{
		"loopback":  conf("127.0.0.1:8080"),
		"loopback6": conf("[::1]:8080"),
		"any":       conf("0.0.0.0:8080"),
		"named":     conf("0.0.0.0:8080", "search.example", "Other.Example"),
		"listen":    conf("search.internal:8080"),
		"star":      conf("127.0.0.1:8080", "*"),
	}
	tests := []struct {
		srv, host string
		status    int
	}{
		{"loopback", "127.0.0.1:8080", 200},
		{"loopback", "127.0.0.1", 200},
		{"loopback", "localhost:8080", 200},
		{"loopback", "LOCALHOST", 200},
		{"loopback", "[::1]:8080", 200},
		{"loopback", "", 200}, // HTTP/1.0 without Host: not a browser
		{"loopback", "evil.example", 421},
		{"loopback", "evil.example:8080", 421},
		{"loopback", "localhost.evil.example", 421},
		{"loopback", "10.0.0.1", 421},
		{"loopback6", "[::1]:8080", 200},
		{"loopback6", "evil.example", 421},
		{"any", "10.1.2.3:8080", 200},
		{"any", "[2001:db8::1]:8080", 200},
		{"any", "localhost", 200},
		{"any", "evil.example", 421},
		{"any", "search.example", 421},
		{"named", "search.example", 200},
		{"named", "SEARCH.example.:8080", 200},
		{"named", "other.example", 200},
		{"named", "10.1.2.3", 200},
		{"named", "evil.example", 421},
		{"listen", "search.internal:8080", 200},
		{"listen", "evil.example", 421},
		{"star", "anything.example", 200},
	}
	handlers := map[string]http.Handler{}
	for name, cfg := range servers {
		s, err := New(Options{Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		handlers[name] = s.Handler()
	}
	for _, tt := range tests {
		t.Run(tt.srv+"/"+tt.host, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/search?q=alpha", nil)
			req.Host = tt.host
			rec := httptest.NewRecorder()
			handlers[tt.srv].ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("GET /search with Host %q = %d %s, want %d", tt.host, rec.Code, rec.Body, tt.status)
			}
			if tt.status != 200 {
				checkJSONError(t, rec.Result(), rec.Body.String())
				if !strings.Contains(rec.Body.String(), "server.hosts") {
					t.Errorf("421 body %s does not name server.hosts", rec.Body)
				}
			}
		})
	}
}

// TestSecurityHeaders checks the headers every answer carries, and the
// caching each allows.
func TestSecurityHeaders(t *testing.T) {
	_, ts := newTestServer(t, testConfig(indexA))
	tests := []struct {
		method, target string
		status         int
		cache          string
	}{
		{"GET", "/", 200, "private, no-cache"},
		{"GET", "/?q=alpha", 200, "private, no-cache"},
		{"GET", "/?q=alpha&k=0", 400, "no-store"},
		{"GET", "/search?q=alpha", 200, "private, no-cache"},
		{"GET", "/documents/1", 200, "private, no-cache"},
		{"GET", "/search", 400, "no-store"},
		{"GET", "/stats", 200, "no-store"},
		{"GET", "/metrics", 200, "no-store"},
		{"GET", "/healthz", 200, "no-store"},
		{"GET", "/nope", 404, "no-store"},
		{"POST", "/admin/reload", 200, "no-store"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, ts.URL+tt.target, strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			if tt.method == "POST" {
				req.Header = adminHeader()
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("%s %s = %d %s, want %d", tt.method, tt.target, resp.StatusCode, body, tt.status)
			}
			h := resp.Header
			for k, want := range map[string]string{
				"X-Content-Type-Options": "nosniff",
				"X-Frame-Options":        "DENY",
				"Referrer-Policy":        "no-referrer",
				"Cache-Control":          tt.cache,
			} {
				if got := h.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			csp := h.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe") || strings.Contains(csp, "script-src") {
				t.Errorf("Content-Security-Policy %q allows scripts or unsafe sources", csp)
			}
			// The page's one inline style is allowed by its hash.
			if m := styleElement.FindSubmatch(body); m != nil {
				sum := sha256.Sum256(m[1])
				if want := "style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, want) {
					t.Errorf("page Content-Security-Policy %q lacks its style's hash %q", csp, want)
				}
			}
		})
	}
}

// TestErrorAnswers checks the error answers outside the handlers: every
// one is JSON, and 405 says which methods the route takes.
func TestErrorAnswers(t *testing.T) {
	cfg := testConfig(indexA)
	cfg.Server.MaxBodyBytes = 16
	_, ts := newTestServer(t, cfg)
	tests := []struct {
		method, target, body string
		status               int
		allow, want          string
	}{
		{"GET", "/nope", "", 404, "", "no route /nope"},
		{"POST", "/search?q=alpha", "", 405, "GET, HEAD", "method POST not allowed"},
		{"DELETE", "/documents/1", "", 405, "GET, HEAD", "not allowed"},
		{"OPTIONS", "/admin/reload", "", 405, "POST", "not allowed"},
		{"GET", "/admin/reload", "", 405, "POST", "not allowed"},
		{"PUT", "/", "", 405, "GET, HEAD", "not allowed"},
		{"GET", "/search?q=alpha", strings.Repeat("x", 17), 413, "", "max_body_bytes=16"},
		{"GET", "/stats", strings.Repeat("x", 17), 413, "", "max_body_bytes=16"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, ts.URL+tt.target, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status || !strings.Contains(string(body), tt.want) {
				t.Fatalf("%s %s = %d %s, want %d with %q", tt.method, tt.target, resp.StatusCode, body, tt.status, tt.want)
			}
			checkJSONError(t, resp, string(body))
			if got := resp.Header.Get("Allow"); got != tt.allow {
				t.Errorf("Allow = %q, want %q", got, tt.allow)
			}
		})
	}
}

// listen runs ListenAndServe on a free loopback port with cfg and returns
// its host:port; the server stops at the end of the test.
func listen(t *testing.T, cfg config.Config) string {
	t.Helper()
	log := &syncBuffer{}
	s, err := New(Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	base, result := serve(t, ctx, s, log)
	t.Cleanup(func() {
		cancel()
		<-result
		s.Close()
	})
	return strings.TrimPrefix(base, "http://")
}

// TestHeaderLimit checks that request headers over max_header_bytes get a
// JSON 431, and headers under it are served.
func TestHeaderLimit(t *testing.T) {
	cfg := testConfig(indexA)
	cfg.Server.MaxHeaderBytes = 8 << 10
	addr := listen(t, cfg)
	for _, tt := range []struct {
		size   int
		status int
	}{{4 << 10, 200}, {16 << 10, 431}, {300 << 10, 431}} {
		req, err := http.NewRequest("GET", "http://"+addr+"/search?q=alpha", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Padding", strings.Repeat("p", tt.size))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Fatalf("%d bytes of headers = %d %s, want %d", tt.size, resp.StatusCode, body, tt.status)
		}
		if tt.status != 200 {
			checkJSONError(t, resp, string(body))
			if !strings.Contains(string(body), "max_header_bytes") {
				t.Errorf("431 body %s does not name max_header_bytes", body)
			}
		}
	}
}

// TestSlowBody opens a few connections that send a request body one byte
// every 100 ms: the server must cut each at server.read_timeout instead of
// holding it for as long as the client likes.
func TestSlowBody(t *testing.T) {
	const timeout = 300 * time.Millisecond
	cfg := testConfig(indexA)
	cfg.Server.ReadTimeout = timeout
	addr := listen(t, cfg)
	requests := []string{
		"POST /admin/reload HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + testToken +
			"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n",
		"GET /search?q=alpha HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n",
		"POST /admin/reload HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + testToken +
			"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
	}
	type cut struct {
		req   int
		after time.Duration
		reply string
		err   error
	}
	cuts := make(chan cut, len(requests))
	for i, r := range requests {
		go func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				cuts <- cut{req: i, err: err}
				return
			}
			defer c.Close()
			start := time.Now()
			// Give up well before the 10 s the body would take.
			c.SetDeadline(start.Add(10 * timeout))
			if _, err := io.WriteString(c, r); err != nil {
				cuts <- cut{req: i, err: err}
				return
			}
			go func() { // one byte every 100 ms until the server hangs up
				for range 100 {
					if _, err := c.Write([]byte("1")); err != nil {
						return
					}
					time.Sleep(100 * time.Millisecond)
				}
			}()
			reply, err := io.ReadAll(bufio.NewReader(c)) // to the server's close
			cuts <- cut{req: i, after: time.Since(start), reply: string(reply), err: err}
		}()
	}
	for range requests {
		c := <-cuts
		// A reset is a cut too: the server closed with the body unread.
		if c.err != nil && !errors.Is(c.err, syscall.ECONNRESET) {
			t.Errorf("request %d: connection held for %s, not cut at read_timeout=%s: %v", c.req, c.after.Round(time.Millisecond), timeout, c.err)
			continue
		}
		if c.after > 5*timeout {
			t.Errorf("request %d: cut after %s, want about read_timeout=%s", c.req, c.after, timeout)
		}
		t.Logf("request %d cut after %s: %q", c.req, c.after.Round(time.Millisecond), firstLine(c.reply))
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\r\n")
	return line
}

// TestStatsPaths checks that /stats and reload answers show index paths
// relative to the index root, never absolute.
func TestStatsPaths(t *testing.T) {
	_, ts := newTestServer(t, testConfig(indexA))
	var st StatsResponse
	getJSON(t, ts.Client(), ts.URL+"/stats", &st)
	if want := filepath.Base(indexA); st.Index.Dir != want {
		t.Errorf("/stats index.dir = %q, want %q (relative to the index root)", st.Index.Dir, want)
	}
	status, body := reload(t, ts.Client(), ts.URL, "{}")
	if status != 200 || strings.Contains(body, filepath.Dir(indexA)) {
		t.Errorf("reload = %d %s, want 200 without the root %s", status, body, filepath.Dir(indexA))
	}
}

// TestReloadRoot checks that reloads choose directories under
// server.index_root only, and that a refusal does not tell whether a
// directory outside the root exists.
func TestReloadRoot(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	copyIndex(t, indexA, filepath.Join(root, "a"))
	copyIndex(t, indexB, filepath.Join(root, "b"))
	copyIndex(t, indexB, filepath.Join(outside, "b"))
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(filepath.Join(root, "a"))
	cfg.Server.IndexRoot = root
	s, ts := newTestServer(t, cfg)

	// Refusals name what was asked, and are the same whether or not the
	// directory exists outside the root.
	tests := []struct {
		index  string
		status int
		want   string
	}{
		{"b", 200, `"index":"b","previous":"a"`},
		{filepath.Join(root, "a"), 200, `"index":"a","previous":"b"`},
		{"./b/../a", 200, `"index":"a"`},
		{"../" + filepath.Base(outside) + "/b", 400, "not under server.index_root"},
		{filepath.Join(outside, "b"), 400, "not under server.index_root"},
		{filepath.Join(outside, "missing"), 400, "not under server.index_root"},
		{"/etc", 400, "not under server.index_root"},
		{"link/b", 409, "no index directory"},
		{"link/missing", 409, "no index directory"},
		{"missing", 409, "no index directory"},
		{"empty", 409, "meta.json"},
	}
	var refusals = map[int]map[string]bool{} // status -> messages, the name taken out
	for _, tt := range tests {
		t.Run(tt.index, func(t *testing.T) {
			body, _ := json.Marshal(ReloadRequest{Index: tt.index})
			status, got := reload(t, ts.Client(), ts.URL, string(body))
			if status != tt.status || !strings.Contains(got, tt.want) {
				t.Fatalf("reload %s = %d %s, want %d with %q", tt.index, status, got, tt.status, tt.want)
			}
			named := strings.ReplaceAll(got, tt.index, "NAME") // the name asked is no news
			for _, dir := range []string{root, outside} {
				if strings.Contains(named, dir) {
					t.Errorf("reload %s answer %s shows the path %s", tt.index, got, dir)
				}
			}
			if status != 200 && tt.want != "meta.json" {
				if refusals[status] == nil {
					refusals[status] = map[string]bool{}
				}
				refusals[status][named] = true
			}
		})
	}
	for status, msgs := range refusals {
		if len(msgs) != 1 {
			t.Errorf("%d refusals differ by more than the name: %v", status, msgs)
		}
	}
	if n := s.reloads.Load(); n != 3 {
		t.Errorf("reloads = %d, want 3", n)
	}
	var st StatsResponse
	getJSON(t, ts.Client(), ts.URL+"/stats", &st)
	if st.Index.Dir != "a" {
		t.Errorf("/stats index.dir = %q, want a", st.Index.Dir)
	}
}

// TestStatsPathOutsideRoot checks that an index outside the root is not
// named on /stats at all.
func TestStatsPathOutsideRoot(t *testing.T) {
	cfg := testConfig(indexA)
	cfg.Server.IndexRoot = t.TempDir()
	_, ts := newTestServer(t, cfg)
	_, body := do(t, ts.Client(), "GET", ts.URL+"/stats", "")
	if strings.Contains(body, filepath.Dir(indexA)) || strings.Contains(body, `"dir"`) {
		t.Errorf("/stats = %s, want no dir for an index outside the root", body)
	}
}

// attackPage is a page of another origin that tries to reload the index
// of the server at %[1]s, as a page in a local browser could: a no-cors
// POST (a "simple" request, sent without asking), and a CORS POST with
// the token and a JSON body (which needs the server's consent). It notes
// when both attempts have settled.
const attackPage = `<!DOCTYPE html>
<html><body><div id="out"></div>
<script>
const url = '%[1]s/admin/reload';
const body = JSON.stringify({index: %[2]q});
const out = document.getElementById('out');
const note = (k, v) => out.setAttribute('data-' + k, v);
Promise.allSettled([
  fetch(url, {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body}).then(
    r => note('simple', r.type), e => note('simple', 'error ' + e)),
  fetch(url, {method: 'POST', headers: {'Content-Type': 'application/json', 'Authorization': 'Bearer %[3]s'}, body}).then(
    r => note('cors', r.status), e => note('cors', 'error ' + e)),
]).then(() => note('done', 'yes'));
</script></body></html>`

// TestAdminCrossOriginBrowser serves a page from another origin that
// tries to switch the served index through the admin route in headless
// Chromium: the index must stay as it was.
func TestAdminCrossOriginBrowser(t *testing.T) {
	bin := chromiumBinary(t)
	s, ts := newTestServer(t, testConfig(indexA))
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, attackPage, ts.URL, indexB, testToken)
	}))
	defer attacker.Close()

	dom := chromium(t, bin, "--virtual-time-budget=5000", "--dump-dom", attacker.URL+"/")
	if !strings.Contains(dom, `data-done="yes"`) {
		t.Fatalf("the attack page did not finish:\n%s", dom)
	}
	if n := s.reloads.Load(); n != 0 {
		t.Errorf("a page of another origin reloaded the index %d times", n)
	}
	var st StatsResponse
	getJSON(t, ts.Client(), ts.URL+"/stats", &st)
	if st.Index.Docs != 150 {
		t.Errorf("served index has %d documents after the attack, want index A's 150", st.Index.Docs)
	}
	// The attempts reached the server, so the test shows them refused.
	_, metrics := do(t, ts.Client(), "GET", ts.URL+"/metrics", "")
	if !regexp.MustCompile(`gpusearch_http_requests_total\{code="4\d\d",route="reload"\} [1-9]`).MatchString(metrics) {
		t.Errorf("no refused request on the reload route in /metrics; the page's attempts did not arrive:\n%s", dom)
	}
	t.Logf("attack page: %s", regexp.MustCompile(`<div id="out"[^>]*>`).FindString(dom))
}
