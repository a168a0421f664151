package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/bench/peers/peer"
	"github.com/gpusearch/gpusearch/indexer"
)

// word returns the i-th word of a generated vocabulary: consonant-vowel
// syllables ending in a consonant that no English stemmer strips, so that
// every engine's analysis keeps each word as one distinct term.
func word(prefix string, i int) string {
	const cons, vows, ends = "bdfgklmnprtv", "aeiou", "kpzm"
	var b strings.Builder
	b.WriteString(prefix)
	for n := i; ; n /= len(cons) * len(vows) {
		b.WriteByte(cons[n%len(cons)])
		b.WriteByte(vows[(n/len(cons))%len(vows)])
		if n < len(cons)*len(vows) {
			break
		}
	}
	b.WriteByte(ends[i%len(ends)])
	return b.String()
}

// tinyCrawl writes docs documents of common words, HTML and text alike, and
// plants each rare word in the documents listed for it. It returns the crawl
// directory.
func tinyCrawl(t *testing.T, docs int, rare map[string][]int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "crawl")
	r := rand.New(rand.NewPCG(8, 8))
	planted := make([][]string, docs)
	for w, ds := range rare {
		for _, d := range ds {
			planted[d] = append(planted[d], w)
		}
	}
	for d := range docs {
		var words []string
		for range 20 + r.IntN(180) {
			words = append(words, word("", int(r.ExpFloat64()*40)%300))
		}
		for _, w := range planted[d] {
			words[r.IntN(len(words))] += " " + w
		}
		text := strings.Join(words, " ")
		name := filepath.Join(dir, "site.example", fmt.Sprintf("d%03d.txt", d))
		if d%2 == 0 {
			name = filepath.Join(dir, "site.example", fmt.Sprintf("d%03d.html", d))
			text = "<html><head><title>" + words[0] + "</title><style>p{}</style></head><body><p>" + text + "</p></body></html>"
		}
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPipeline runs the whole command on a tiny crawl with every installed
// engine, on whole documents and on passages. Its queries are rare words
// (and pairs of them) found in at most ten documents, so every engine's top
// 10 is the set of documents (or passages) holding them, whatever its
// scoring: overlap@10 with gpusearch must be 1 for each engine, in both
// modes.
func TestPipeline(t *testing.T) {
	for _, tc := range []struct {
		name     string
		passages int
		rounds   int
		engines  []string
	}{
		{"documents", 0, 2, []string{"gpusearch", "lucene", "xapian", "bleve", "pisa", "pisa-optpfor", "pisa-idf1"}},
		{"passages", 16, 1, []string{"gpusearch", "lucene", "xapian", "pisa", "pisa-optpfor", "pisa-idf1"}},
	} {
		t.Run(tc.name, func(t *testing.T) { testPipeline(t, tc.passages, tc.rounds, tc.engines) })
	}
}

func testPipeline(t *testing.T, passages, rounds int, engines []string) {
	const docs = 80
	rare := map[string][]int{}
	var queries []string
	for i := range 12 {
		w := word("x", i)
		rare[w] = []int{(i * 7) % docs, (i*7 + 3) % docs, (i*11 + 5) % docs}[:1+i%3]
		queries = append(queries, w)
	}
	for i := range 4 {
		a, b := word("y", 2*i), word("y", 2*i+1)
		rare[a] = []int{i, i + 40, i + 60}
		rare[b] = []int{i, i + 40, i + 20}
		queries = append(queries, a+" "+b)
	}
	crawl := tinyCrawl(t, docs, rare)
	qfile := filepath.Join(t.TempDir(), "queries.txt")
	var qs strings.Builder
	for i, q := range queries {
		fmt.Fprintf(&qs, "q%d\t%s\n", i+1, q)
	}
	if err := os.WriteFile(qfile, []byte(qs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	trec := filepath.Join(t.TempDir(), "trec")
	var stdout, stderr bytes.Buffer
	engineList := strings.Join(slices.DeleteFunc(slices.Clone(engines), func(e string) bool { return e == "pisa-optpfor" }), ",")
	args := []string{"--crawl", crawl, "--queries", qfile, "--k", "10,1000", "--warmup-queries", "0", "--json", "--trec", trec,
		"--passages", fmt.Sprint(passages), "--rounds", fmt.Sprint(rounds), "--engines", engineList}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run(%v) = %v\nstderr:\n%s", args, err, stderr.String())
	}
	var rep peer.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout.String())
	}
	if (passages == 0 && rep.Documents != docs) || rep.Documents < docs || rep.Queries != len(queries) || rep.Rounds != rounds {
		t.Fatalf("report has %d documents, %d queries and %d rounds, want %d (more with passages), %d and %d",
			rep.Documents, rep.Queries, rep.Rounds, docs, len(queries), rounds)
	}
	byName := map[string]peer.EngineReport{}
	for _, e := range rep.Engines {
		byName[e.Name] = e
	}
	for _, name := range engines {
		t.Run(name, func(t *testing.T) {
			e, ok := byName[name]
			if !ok {
				if why, skipped := rep.Skipped[name]; skipped {
					t.Skipf("%s is not installed: %s", name, why)
				}
				t.Fatalf("%s neither measured nor skipped", name)
			}
			if e.IndexBytes <= 0 || len(e.Runs) != 4 {
				t.Fatalf("%s: index of %d bytes, %d runs; want a non-empty index and 4 runs", name, e.IndexBytes, len(e.Runs))
			}
			for _, r := range e.Runs {
				// A pair's words may fall into different passages: such an
				// AND query has no hits, in every engine alike.
				mayMiss := passages > 0 && r.Mode == "and"
				if r.Overlap10 != 1 || r.OverlapQueries+r.NoHits != len(queries) || (r.NoHits != 0 && !mayMiss) {
					t.Errorf("%s %s: overlap@10 %v over %d queries, %d without hits; want 1 over %d, 0",
						name, r.Spec, r.Overlap10, r.OverlapQueries, r.NoHits, len(queries))
				}
				// PISA times in whole microseconds: 0 on a crawl this small.
				if r.Samples != rounds*len(queries) || r.WallMeanUS < 0 || (r.WallMeanUS == 0 && !strings.HasPrefix(name, "pisa")) {
					t.Errorf("%s %s: %d samples, wall mean %v us; want %d samples and a positive mean", name, r.Spec, r.Samples, r.WallMeanUS, rounds*len(queries))
				}
				run, err := os.ReadFile(filepath.Join(trec, fmt.Sprintf("%s.%s.%d.run", name, r.Mode, r.K)))
				if err != nil {
					t.Fatal(err)
				}
				if first := strings.Fields(strings.SplitN(string(run), "\n", 2)[0]); len(first) != 6 || first[0] != "q1" || first[1] != "Q0" {
					t.Errorf("%s %s: TREC run starts %q, want qid q1 Q0 ...", name, r.Spec, first)
				}
			}
		})
	}

	report := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(report, stdout.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(t.TempDir(), "peers.png")
	if err := run(context.Background(), []string{"plot", "--out", png, report, report}, &stdout, &stderr); err != nil {
		t.Fatalf("plot: %v", err)
	}
	if data, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Errorf("plot wrote %d bytes (%v), want a PNG", len(data), err)
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no crawl", []string{"--queries", "q.txt"}},
		{"bad k", []string{"--crawl", "c", "--queries", "q.txt", "--k", "0"}},
		{"bad mode", []string{"--crawl", "c", "--queries", "q.txt", "--modes", "andor"}},
		{"plot without out", []string{"plot", "r.json"}},
		{"phrase without positions", []string{"--crawl", "c", "--queries", "q.txt", "--modes", "phrase", "--engines", "gpusearch,lucene"}},
		{"phrase with xapian", []string{"--crawl", "c", "--queries", "q.txt", "--modes", "phrase", "--positions", "--engines", "gpusearch,xapian"}},
		{"store with bleve", []string{"--crawl", "c", "--queries", "q.txt", "--store", "text", "--engines", "bleve"}},
		{"bad store", []string{"--crawl", "c", "--queries", "q.txt", "--store", "all", "--engines", "lucene"}},
		{"passages with bleve", []string{"--crawl", "c", "--queries", "q.txt", "--passages", "64", "--engines", "gpusearch,bleve"}},
		{"negative passages", []string{"--crawl", "c", "--queries", "q.txt", "--passages", "-1", "--engines", "pisa"}},
		{"phrases from nothing", []string{"phrases"}},
		{"phrases from two sources", []string{"phrases", "--index", "ix", "--titles", "t.txt"}},
		{"snippets without index", []string{"snippets", "--queries", "q.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errb)
			if _, ok := err.(usageError); !ok {
				t.Errorf("run(%v) = %v, want a usage error", tt.args, err)
			}
		})
	}
}

// TestPhrasePipeline answers phrase queries with gpusearch and Lucene, both
// with positions and stored text, on a tiny crawl where each phrase's two
// words also occur apart in other documents: both engines must find exactly
// the documents holding the words side by side. It also runs the phrases and
// snippets commands over a gpusearch index of the crawl.
func TestPhrasePipeline(t *testing.T) {
	const docs = 60
	rare := map[string][]int{}
	var phrases []string
	for i := range 5 {
		a, b := word("z", 2*i), word("z", 2*i+1)
		rare[a+" "+b] = []int{i, i + 30}
		rare[b+" "+a] = []int{i + 10}
		rare[a] = []int{i + 20}
		phrases = append(phrases, a+" "+b)
	}
	crawl := tinyCrawl(t, docs, rare)
	qfile := filepath.Join(t.TempDir(), "phrases.txt")
	var qs strings.Builder
	for i, p := range phrases {
		fmt.Fprintf(&qs, "p%d\t%s\n", i+1, p)
	}
	if err := os.WriteFile(qfile, []byte(qs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"--crawl", crawl, "--queries", qfile, "--engines", "gpusearch,lucene", "--positions", "--store", "text",
		"--modes", "phrase", "--k", "10", "--warmup-queries", "0", "--json"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("run(%v) = %v\nstderr:\n%s", args, err, stderr.String())
	}
	var rep peer.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, stdout.String())
	}
	for _, e := range rep.Engines {
		r := e.Runs[0]
		if r.Overlap10 != 1 || r.OverlapQueries != len(phrases) || r.NoHits != 0 {
			t.Errorf("%s phrase: overlap@10 %v over %d queries, %d without hits; want 1 over %d, 0",
				e.Name, r.Overlap10, r.OverlapQueries, r.NoHits, len(phrases))
		}
	}
	if len(rep.Engines) < 2 {
		t.Logf("lucene skipped: %v", rep.Skipped)
	}

	ix := filepath.Join(t.TempDir(), "ix")
	if _, err := indexer.Build(context.Background(), crawl, ix, indexer.Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if err := run(context.Background(), []string{"phrases", "--index", ix, "--n", "3"}, &stdout, &stderr); err != nil {
		t.Fatalf("phrases: %v", err)
	}
	if lines := strings.Split(strings.TrimSpace(stdout.String()), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], "p1\t") {
		t.Errorf("phrases printed %q, want 3 lines p1<TAB>...", lines)
	}
	stdout.Reset()
	if err := run(context.Background(), []string{"snippets", "--index", ix, "--queries", qfile, "--repeat", "1"}, &stdout, &stderr); err != nil {
		t.Fatalf("snippets: %v", err)
	}
	var sr peer.SnippetReport
	if err := json.Unmarshal(stdout.Bytes(), &sr); err != nil || sr.Hits != 3*len(phrases) || sr.HitP50US <= 0 {
		t.Errorf("snippets reported %+v (%v), want %d hits with a positive p50", sr, err, 3*len(phrases))
	}
}
