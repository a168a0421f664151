package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestConfigEngine: search.engine may name any engine of the registry
// (bmw here, which the config once refused) and is the default of
// /search; an unknown name is refused when the server is built, not at
// its first query.
func TestConfigEngine(t *testing.T) {
	cfg := testConfig(indexA)
	cfg.Search.Engine = "bmw"
	_, ts := newTestServer(t, cfg)
	resp, err := http.Get(ts.URL + "/search?q=alpha")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got SearchResponse
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("search with search.engine bmw: %d, %v", resp.StatusCode, err)
	}
	if got.Engine != "bmw" {
		t.Errorf("engine %q answered, want bmw", got.Engine)
	}

	cfg.Search.Engine = "nope"
	if _, err := New(Options{Config: cfg}); err == nil || !strings.Contains(err.Error(), "search.engine") {
		t.Errorf("New with search.engine nope: %v, want an error naming search.engine", err)
	}
}
