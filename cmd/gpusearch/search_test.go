package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/eval"
)

// indexCrawl writes files (relative path -> content) as a crawl, indexes
// it and returns the index directory.
func indexCrawl(t *testing.T, files map[string]string) string {
	t.Helper()
	crawl := t.TempDir()
	for rel, data := range files {
		p := filepath.Join(crawl, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx := filepath.Join(t.TempDir(), "idx")
	mustRun(t, "index", "--quiet", "--codec", "varint-SU", "--out", idx, crawl)
	return idx
}

// TestSearchPrintsPrintableLines searches an index whose file names and
// texts hold a newline, a tab and a terminal escape: each hit prints as a
// line of rank, score and title, then its URL and its snippet indented,
// every unprintable character percent-encoded, so that a file name or a
// text can neither forge result lines nor drive the terminal.
func TestSearchPrintsPrintableLines(t *testing.T) {
	idx := indexCrawl(t, map[string]string{
		"example.com/evil\n  1    99.0000  http:forged.txt": "needle",
		"example.com/tab\there.txt":                         "needle",
		"example.com/esc\x1b[2Jx.txt":                       "needle",
		"example.com/plain page.txt":                        "needle",
		"example.com/text.txt":                              "needle \x1b[2J\x07 text",
	})
	res := mustRun(t, "search", "--index", idx, "--k", "10", "needle")
	head := regexp.MustCompile(`^ *\d+  +\d+\.\d{4}  \S`)
	indent := strings.Repeat(" ", 15)
	lines := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
	var urls []string
	for i := 0; i < len(lines); i += 3 {
		hit := lines[i:min(i+3, len(lines))]
		if len(hit) != 3 || !head.MatchString(hit[0]) || !strings.HasPrefix(hit[1], indent) || !strings.HasPrefix(hit[2], indent) ||
			slices.ContainsFunc(hit, func(l string) bool { return strings.ContainsFunc(l, func(r rune) bool { return r < ' ' || r == 0x7f }) }) {
			t.Errorf("search printed %q, want a line of rank, score and title, then URL and snippet lines, all printable", hit)
			continue
		}
		urls = append(urls, strings.TrimPrefix(hit[1], indent))
	}
	slices.Sort(urls)
	want := []string{
		"http://example.com/esc%1B[2Jx.txt",
		"http://example.com/evil%0A  1    99.0000  http:forged.txt",
		"http://example.com/plain page.txt",
		"http://example.com/tab%09here.txt",
		"http://example.com/text.txt",
	}
	if !slices.Equal(urls, want) {
		t.Errorf("search printed the URLs %q, want %q", urls, want)
	}
	if !strings.Contains(res.stdout, "needle %1B[2J%07 text") {
		t.Errorf("search printed %q, want the title and snippet needle %%1B[2J%%07 text", res.stdout)
	}
}

// TestSearchTRECEscapesDocNos writes a TREC run for an index with a file
// name holding a space: the run is written whole, the docno escaped.
func TestSearchTRECEscapesDocNos(t *testing.T) {
	idx := indexCrawl(t, map[string]string{
		"example.com/my page.txt": "needle needle",
		"example.com/other.txt":   "needle",
	})
	res := mustRun(t, "search", "--index", idx, "--trec", "--qid", "q1", "needle")
	run, err := eval.ReadRun(strings.NewReader(res.stdout))
	if err != nil {
		t.Fatalf("search --trec printed %q: %v", res.stdout, err)
	}
	var docnos []string
	for _, r := range run["q1"] {
		docnos = append(docnos, r.DocNo)
	}
	if want := []string{"my%20page", "other"}; len(run) != 1 || !slices.Equal(docnos, want) {
		t.Errorf("search --trec printed %q, want query q1 with docnos %q", res.stdout, want)
	}
}
