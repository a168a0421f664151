package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/gpusearch/gpusearch/codecplugins/all"
	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/indexer"
)

// vocabulary is the words of the synthetic test crawls.
var vocabulary = strings.Fields(`alpha bravo charlie delta echo foxtrot golf hotel india juliet
kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray
yankee zulu amber basalt cobalt dune ember fjord granite harbor island jasper`)

// Indexes shared by the tests, built once by TestMain: two collections
// over the same words, with different hosts and sizes.
var (
	indexA string // http://a.test/..., 150 documents
	indexB string // http://b.test/..., 220 documents
)

func TestMain(m *testing.M) {
	root, err := os.MkdirTemp("", "api-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	indexA, err = buildIndex(root, "a.test", 150, 1)
	if err == nil {
		indexB, err = buildIndex(root, "b.test", 220, 2)
	}
	code := 1
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(root)
	os.Exit(code)
}

// buildIndex writes a crawl of docs text files under root/host (seeded,
// so two seeds give two collections over the same words) and indexes it
// into root/host.index, which it returns.
func buildIndex(root, host string, docs int, seed uint64) (string, error) {
	crawl := filepath.Join(root, "crawl-"+host)
	r := rand.New(rand.NewPCG(seed, 7))
	for i := range docs {
		words := make([]string, 5+r.IntN(40))
		for j := range words {
			// Skewed: low words are frequent, high ones rare.
			words[j] = vocabulary[int(float64(len(vocabulary))*r.Float64()*r.Float64())]
		}
		path := filepath.Join(crawl, host, fmt.Sprintf("doc%04d.txt", i))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(path, []byte(strings.Join(words, " ")), 0o644); err != nil {
			return "", err
		}
	}
	out := filepath.Join(root, host+".index")
	opts := indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Workers: 1, Positions: true}
	if _, err := indexer.Build(context.Background(), crawl, out, opts); err != nil {
		return "", fmt.Errorf("indexer.Build(%s): %w", crawl, err)
	}
	return out, nil
}

// testToken is the admin token of testConfig.
const testToken = "test-token-0123456789"

// testConfig is the default configuration serving dir on a loopback
// address, with the admin route on (token testToken) and example.com, the
// host of httptest.NewRequest, among the allowed hosts.
func testConfig(dir string) config.Config {
	cfg := config.Default()
	cfg.Server.Index = dir
	cfg.Server.Addr = "127.0.0.1:0"
	cfg.Server.AdminReload = true
	cfg.Server.AdminToken = testToken
	cfg.Server.Hosts = []string{"example.com"}
	return cfg
}

// adminHeader is what an admin request of testConfig carries.
func adminHeader() http.Header {
	return http.Header{"Authorization": {"Bearer " + testToken}, "Content-Type": {"application/json"}}
}

// adminRequest is a POST of body to url with adminHeader.
func adminRequest(url, body string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.RequestURI = "" // a client request
	req.Header = adminHeader()
	return req
}

// newTestServer builds a Server over cfg and an httptest server in front
// of it; both are closed at the end of the test.
func newTestServer(t testing.TB, cfg config.Config) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(Options{Config: cfg})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		ts.Close()
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s, ts
}

// fetch sends one request and returns the status and body.
func fetch(c *http.Client, method, url, body string) (int, string, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	return send(c, req)
}

// send sends req and returns the status and body.
func send(c *http.Client, req *http.Request) (int, string, error) {
	method, url := req.Method, req.URL
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", fmt.Errorf("%s %s: %w", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", fmt.Errorf("%s %s: reading body: %w", method, url, err)
	}
	return resp.StatusCode, string(b), nil
}

// do is fetch for the test's goroutine: an error fails the test.
func do(t testing.TB, c *http.Client, method, url, body string) (int, string) {
	t.Helper()
	status, b, err := fetch(c, method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	return status, b
}

// reload POSTs body to url's /admin/reload as testConfig's admin; an
// error fails the test.
func reload(t testing.TB, c *http.Client, base, body string) (int, string) {
	t.Helper()
	status, b, err := send(c, adminRequest(base+"/admin/reload", body))
	if err != nil {
		t.Fatal(err)
	}
	return status, b
}

// getJSON GETs url, wants status 200, and decodes the body into v.
func getJSON(t testing.TB, c *http.Client, url string, v any) {
	t.Helper()
	status, body := do(t, c, http.MethodGet, url, "")
	if status != http.StatusOK {
		t.Fatalf("GET %s = %d %s, want 200", url, status, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: decoding %q: %v", url, body, err)
	}
}
