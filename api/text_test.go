package api

import (
	"strings"
	"testing"
)

// TestWriteText: one result line per hit, then the URL and the snippet
// indented; characters that do not print are percent-encoded so that a
// title, URL or snippet cannot forge a line or drive the terminal.
func TestWriteText(t *testing.T) {
	for _, tt := range []struct {
		name string
		resp SearchResponse
		want string
	}{
		{"title url snippet", SearchResponse{Hits: []Hit{{URL: "http://a/", Score: 1.5, Title: "A", Snippet: "about a"}}},
			"  1    1.5000  A\n               http://a/\n               about a\n"},
		{"no title", SearchResponse{Start: 10, Hits: []Hit{{URL: "http://b/", Score: 2}}},
			" 11    2.0000  http://b/\n"},
		{"forged line", SearchResponse{Hits: []Hit{{URL: "http://c/x\n  2  9.0  evil", Score: 1}}},
			"  1    1.0000  http://c/x%0A  2  9.0  evil\n"},
		{"escape and bad utf-8", SearchResponse{Hits: []Hit{{URL: "u", Title: "t\x1b[2J\xff", Score: 1}}},
			"  1    1.0000  t%1B[2J%FF\n               u\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.resp.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("WriteText:\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}
