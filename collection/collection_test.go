package collection

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/gpusearch/gpusearch/eval"
	"github.com/gpusearch/gpusearch/indexer/extract"
)

// dataDir returns testdata/<name>, a test collection kept in the
// repository. A missing collection fails the test: it is part of the
// tree, so its absence is a broken checkout, not an optional extra.
func dataDir(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join("testdata", name)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("test collection %s missing: %v", name, err)
	}
	return dir
}

// countLines counts a file's lines.
func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		n++
	}
	return n
}

// fixtures is the folder TestMain makes for the collections the tests share.
var fixtures string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "collection-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixtures = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// A fixture is a test collection read and written once per package run and
// shared by the tests that need it: Write creates a file per document, the
// slowest step of these tests.
type fixture struct {
	read func(string) (*Collection, error)
	once sync.Once
	c    *Collection
	dir  string // where c is written
	err  error
}

var shared = map[string]*fixture{
	"cranfield": {read: ReadCranfield},
	"cacm":      {read: ReadCACM},
}

// converted returns the named test collection and the folder it is written
// in. The folder is shared: tests must not change it.
func converted(t *testing.T, name string) (*Collection, string) {
	t.Helper()
	f := shared[name]
	src := dataDir(t, name)
	f.once.Do(func() {
		if f.c, f.err = f.read(src); f.err == nil {
			f.dir = filepath.Join(fixtures, name)
			f.err = f.c.Write(f.dir)
		}
	})
	if f.err != nil {
		t.Fatalf("converting %s: %v", name, f.err)
	}
	return f.c, f.dir
}

// checkWritten checks the counts of the files c was written as in out.
func checkWritten(t *testing.T, c *Collection, out string) {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(out, "crawl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != len(c.Docs) {
		t.Errorf("Write: %d files in crawl, want %d", len(ents), len(c.Docs))
	}
	if n := countLines(t, filepath.Join(out, "queries.txt")); n != len(c.Queries) {
		t.Errorf("Write: queries.txt has %d lines, want %d", n, len(c.Queries))
	}
	judgments := 0
	for _, m := range c.Qrels {
		judgments += len(m)
	}
	if n := countLines(t, filepath.Join(out, "qrels.txt")); n != judgments {
		t.Errorf("Write: qrels.txt has %d lines, want %d", n, judgments)
	}
}

func TestCranfield(t *testing.T) {
	t.Parallel()
	c, out := converted(t, "cranfield")
	if len(c.Docs) != 1400 || len(c.Queries) != 225 || c.QueriesWithJudgments() != 225 {
		t.Errorf("ReadCranfield: %d documents, %d queries, %d judged, want 1400, 225, 225",
			len(c.Docs), len(c.Queries), c.QueriesWithJudgments())
	}
	// The third query of cran.qry is .I 004; the qrels call it 3.
	if q := c.Queries[2]; q.ID != "3" || !strings.HasPrefix(q.Text, "what problems of heat conduction in composite slabs") {
		t.Errorf("ReadCranfield: third query = %+v, want id 3 on heat conduction in composite slabs", q)
	}
	// cranqrel: "1 184 2", "1 14 4", "1 486 -1".
	for _, j := range []struct {
		doc  string
		gain int
	}{{"184", 3}, {"14", 1}, {"486", 0}} {
		if g, ok := c.Qrels["1"][j.doc]; !ok || g != j.gain {
			t.Errorf("ReadCranfield: query 1, document %s: gain %d (judged %v), want %d", j.doc, g, ok, j.gain)
		}
	}
	if d := c.Docs[0]; d.ID != "1" || !strings.HasPrefix(d.Text, "experimental investigation of the aerodynamics of a\nwing in a slipstream .\n\n") ||
		strings.Contains(d.Text, "brenckman") || strings.Contains(d.Text, "j. ae. scs.") {
		t.Errorf("ReadCranfield: document 1 = %q, want title and abstract without author and bibliography", d.Text)
	}
	checkWritten(t, c, out)
	if _, err := os.Stat(filepath.Join(out, "crawl", "1400.txt")); err != nil {
		t.Errorf("Write: %v", err)
	}
}

func TestCACM(t *testing.T) {
	t.Parallel()
	c, out := converted(t, "cacm")
	if len(c.Docs) != 3204 || len(c.Queries) != 64 || c.QueriesWithJudgments() != 52 {
		t.Errorf("ReadCACM: %d documents, %d queries, %d judged, want 3204, 64, 52",
			len(c.Docs), len(c.Queries), c.QueriesWithJudgments())
	}
	if d := c.Docs[0]; d.ID != "1" || d.Text != "Preliminary Report-International Algebraic Language\n" {
		t.Errorf("ReadCACM: document 1 = %q, want only its title", d.Text)
	}
	// qrels.text: "01 1410  0 0".
	if g := c.Qrels["1"]["1410"]; g != 1 {
		t.Errorf("ReadCACM: query 1, document 1410: gain %d, want 1", g)
	}
	if q := c.Queries[0]; q.ID != "1" || !strings.HasPrefix(q.Text, "What articles exist which deal with TSS") {
		t.Errorf("ReadCACM: first query = %+v", q)
	}
	checkWritten(t, c, out)
}

func TestRFC(t *testing.T) {
	c, err := ReadRFC(filepath.Join("testdata", "doc-rfc"))
	if err != nil {
		t.Fatalf("ReadRFC: %v", err)
	}
	var ids []string
	for _, d := range c.Docs {
		ids = append(ids, d.ID)
	}
	if want := []string{"rfc1", "rfc2", "rfc3", "rfc4", "rfc5"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("ReadRFC documents = %v, want %v", ids, want)
	}
	// rfc4 and rfc5 share a title, so neither is a known item.
	wantQ := []eval.Query{
		{ID: "1", Text: "Host Software"},
		{ID: "2", Text: "Hypertext Transfer Protocol -- HTTP/1.1"},
		{ID: "3", Text: "A Title Long Enough To Need Two Lines"},
	}
	if !reflect.DeepEqual(c.Queries, wantQ) {
		t.Errorf("ReadRFC queries = %q, want %q", c.Queries, wantQ)
	}
	wantQrels := eval.Qrels{"1": {"rfc1": 1}, "2": {"rfc2": 1}, "3": {"rfc3": 1}}
	if !reflect.DeepEqual(c.Qrels, wantQrels) {
		t.Errorf("ReadRFC qrels = %v, want %v", c.Qrels, wantQrels)
	}
	out := t.TempDir()
	if err := c.Write(out); err != nil {
		t.Fatalf("Write: %v", err)
	}
	checkWritten(t, c, out)
	if err := c.Write(out); err == nil {
		t.Errorf("Write into a folder that already holds a crawl = nil error, want one")
	}
	b, err := os.ReadFile(filepath.Join(out, "crawl", "rfc2.txt"))
	if err != nil || !strings.Contains(string(b), "HTTP is an application-level protocol.") {
		t.Errorf("Write: crawl/rfc2.txt = %q, %v, want the gunzipped text", b, err)
	}
	if _, err := ReadRFC(t.TempDir()); err == nil {
		t.Errorf("ReadRFC(empty folder) = nil error, want one")
	}
}

func TestTitleFromText(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"centered after header", "Network Working Group    X\nRequest for Comments: 9   Org\n         May 2000\n\n\n      The   Title\n\nStatus\n", "The Title"},
		{"two lines", "Request for Comments: 9\n\n  First half\n  second half\n\nbody\n", "First half second half"},
		{"at most three lines", "Request for Comments: 9\n\na\nb\nc\nd\n\n", "a b c"},
		{"title at end of file", "Request for Comments: 9\n\nLast words", "Last words"},
		{"no header", "Just some text\n\nmore\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := titleFromText(strings.NewReader(tt.text))
			if err != nil || got != tt.want {
				t.Errorf("titleFromText(%q) = %q, %v, want %q", tt.text, got, err, tt.want)
			}
		})
	}
}

func TestRead(t *testing.T) {
	if _, err := Read("trec", "."); err == nil {
		t.Errorf("Read(unknown format) = nil error, want one")
	}
	c, err := Read("rfc", filepath.Join("testdata", "doc-rfc"))
	if err != nil || len(c.Docs) != 5 {
		t.Errorf("Read(rfc) = %v, %v, want 5 documents", c, err)
	}
}

// TestWriteHTML checks that WriteHTML's pages give an HTML extractor
// back each document's title and text, markup in them included, and
// that the RFCs carry their titles.
func TestWriteHTML(t *testing.T) {
	rfc, err := ReadRFC(filepath.Join("testdata", "doc-rfc"))
	if err != nil {
		t.Fatal(err)
	}
	cran, _ := converted(t, "cranfield")
	tests := []struct {
		name      string
		c         *Collection
		doc       string
		wantTitle string
		wantText  string
	}{
		{"rfc title", rfc, "rfc2", "Hypertext Transfer Protocol -- HTTP/1.1", "HTTP is an application-level protocol."},
		{"cranfield title of two lines", &Collection{Docs: cran.Docs[:1]}, "1", "experimental investigation of the aerodynamics of a wing in a slipstream .", "an experimental study of a wing in a propeller slipstream"},
		{"shared title", rfc, "rfc5", rfc.Docs[4].Title, ""},
		{"markup escaped", &Collection{Docs: []Doc{{ID: "d1", Title: "a <b> & </title>", Text: "x < y && </pre> z"}}}, "d1", "a <b> & </title>", "x < y && </pre> z"},
		{"no title", &Collection{Docs: []Doc{{ID: "d1", Text: "first line\nsecond"}}}, "d1", "first line", "second"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			if err := tt.c.WriteHTML(out); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(out, "crawl", tt.doc+".html"))
			if err != nil {
				t.Fatal(err)
			}
			title, text := extract.HTMLDoc(b)
			if title != tt.wantTitle || tt.wantTitle == "" || !strings.Contains(string(text), tt.wantText) {
				t.Errorf("%s.html extracts as title %q, text %q; want title %q and text holding %q", tt.doc, title, text, tt.wantTitle, tt.wantText)
			}
		})
	}
}
