package snippet

import (
	"cmp"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/indexer/extract"
)

// parse makes a Query from text as a user types it: words, and "quoted
// phrases" (a test stand-in for query.Parse's syntax).
func parse(text string) Query {
	a := analysis.New()
	var q Query
	seen := map[string]bool{}
	for i, part := range strings.Split(text, `"`) {
		terms := a.Terms(part)
		if i%2 == 1 {
			q.Phrases = append(q.Phrases, terms)
		}
		for _, t := range terms {
			if !seen[t] {
				seen[t] = true
				q.Terms = append(q.Terms, t)
			}
		}
	}
	return q
}

// marked shows a snippet with its highlights in brackets.
func marked(s Snippet) string {
	var b strings.Builder
	at := 0
	for _, h := range s.Highlights {
		b.WriteString(s.Text[at:h[0]] + "[" + s.Text[h[0]:h[1]] + "]")
		at = h[1]
	}
	return b.String() + s.Text[at:]
}

func TestMake(t *testing.T) {
	long := strings.Repeat("filler words here ", 20)
	tests := []struct {
		name, query, text string
		size              int
		want              string
	}{
		{"empty text", "run", "", 0, ""},
		{"only spaces", "run", " \n\t ", 0, ""},
		{"stemmed match", "run", "The dogs were Running fast.", 0, "The dogs were [Running] fast."},
		{"every form", "run", "run, runs; RUNNING ran", 0, "[run], [runs]; [RUNNING] ran"},
		{"no match: the start", "zebra", "alpha beta gamma delta", 12, "alpha beta…"},
		{"whitespace collapsed", "b", "  a \n\n b\t\tc  ", 0, "a [b] c"},
		{"cut at words, both ends", "needle", long + "the needle is here " + long, 40,
			"…here the [needle] is here filler words…"},
		{"most distinct terms win", "alpha beta", "alpha " + long + "alpha then beta " + long, 30,
			"…here [alpha] then [beta] filler…"},
		{"ties: the earliest", "alpha beta", "alpha " + long + "beta " + long, 12, "[alpha] filler…"},
		{"phrase in order only", `"http server"`, "server http and then http server", 0,
			"server http and then [http] [server]"},
		{"phrase across punctuation", `"http server"`, "an http, server", 0, "an [http], [server]"},
		{"phrase and term beat a term", `"new york" city`, "york new city " + long + " New York city", 20,
			"…here [New] [York] [city]"},
		{"phrase needs adjacent terms", `"new york"`, "new big york", 0, "new big york"},
		{"complex words", "don't http.server café", "I don't use http.Server at the Café", 0,
			"I [don't] use [http.Server] at the [Café]"},
		{"not inside a longer word", "server", "http.Server servers", 0, "http.Server [servers]"},
		{"invalid UTF-8", "caf", "a\xffcaf\xfe b", 0, "a\uFFFD[caf]\uFFFD b"},
		{"ideographs", "本", "日本語の本です", 0, "日[本]語の[本]です"},
		{"ideographs cut", "本", strings.Repeat("日", 40) + "本" + strings.Repeat("語", 40), 30,
			"…日日日[本]語語語語語語…"},
		{"kelvin sign", "kelvin", "\u212Aelvin", 0, "[\u212Aelvin]"},
		{"combining mark after a space", "b", "a \u0301b c", 0, "a \u0301[b] c"},
		{"numbers", "3.14 42", "pi is 3.14, not 42.", 0, "pi is [3.14], not [42]."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(parse(tt.query), tt.size).Make(analysis.New(), tt.text, nil)
			if got := marked(s); got != tt.want {
				t.Errorf("Make(%q, %q) = %q, want %q", tt.query, tt.text, got, tt.want)
			}
			check(t, tt.text, s)
		})
	}
}

// check checks a snippet's invariants: valid UTF-8, highlights in order
// within the text and on the rune boundaries.
func check(t *testing.T, text string, s Snippet) {
	t.Helper()
	if !utf8.ValidString(s.Text) {
		t.Fatalf("snippet of %q is not UTF-8: %q", text, s.Text)
	}
	at := 0
	for _, h := range s.Highlights {
		if h[0] < at || h[1] <= h[0] || h[1] > len(s.Text) || !utf8.ValidString(s.Text[h[0]:h[1]]) {
			t.Fatalf("snippet of %q: highlight %v of %q", text, h, s.Text)
		}
		at = h[1]
	}
}

// reference is a plain snippet maker: it analyzes the whole scanned text,
// finds every occurrence of every unit, and tries every window.
func reference(q Query, size int, text string) Snippet {
	m := New(q, size)
	var all []match
	pos := 0
	analysis.New().AnalyzeOffsets([]byte(scanned(text)), func(term string, s, e int) {
		if id, ok := m.ids[term]; ok {
			all = append(all, match{id, s, e, pos})
		}
		pos++
	})
	m.matches = all
	for i, mt := range all {
		if u := m.unit[mt.term]; u >= 0 {
			m.occs = append(m.occs, occ{u, mt.start, mt.end, i, i})
		}
		for p, ph := range m.phrases {
			if i+len(ph) > len(all) {
				continue
			}
			ok := true
			for j, id := range ph {
				if all[i+j].term != id || all[i+j].pos != mt.pos+j {
					ok = false
				}
			}
			if ok {
				m.occs = append(m.occs, occ{int32(m.units-len(m.phrases)) + int32(p), mt.start, all[i+len(ph)-1].end, i, i + len(ph) - 1})
			}
		}
	}
	sort.SliceStable(m.occs, func(i, j int) bool { return m.occs[i].start < m.occs[j].start })
	l, r, most := 0, 0, 0
	for i, o := range m.occs {
		units := map[int32]bool{}
		j := i
		for ; j < len(m.occs) && m.occs[j].start < o.start+size; j++ {
			if m.occs[j].end <= o.start+size {
				units[m.occs[j].unit] = true
			}
		}
		if len(units) > most {
			most, l, r = len(units), i, j
		}
	}
	if most == 0 && len(m.occs) > 0 {
		l, r = 0, 1
	}
	from, to := 0, 0
	if l < r {
		from, to = m.occs[l].start, m.occs[l].end
		for _, o := range m.occs[l:r] {
			if o.end <= from+size {
				to = max(to, o.end)
			}
		}
	}
	start, end, before, after := m.cut(text, from, to)
	return m.render(text, start, end, before, after, l, r)
}

var pieces = []string{
	"run", "Running", "runs", "ran", "server", "Server", "http", "HTTP", "http.Server", "servers",
	"new", "York", "don't", "café", "CAFÉ", "3.14", "42", "日", "本", "カタ", "\u212Aelvin", "kelvin",
	"İstanbul", "_x", "x_", "a", "the", "..", ".", ",", ":", "'", "\"", " ", " ", " ", "\n", "\t", "-",
	"(", ")", "/", "\u0301", "\u200d", "\u00a0", "。", "😀", "\xff", "\xe2\x80", strings.Repeat("z", 300),
}

var queries = []string{
	"run", "run server", `"http server"`, `"new york" run`, `"run run" http`, "café 3.14 kelvin",
	"日 本", `"日 本" x`, "istanbul _x", `"server http server" new`, "a the",
}

func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(pieces[r.IntN(len(pieces))])
		if r.IntN(2) == 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// TestMakeMatchesReference checks the scan (its shortcuts, its early stop,
// with and without knowing which terms the text holds) against the plain
// maker on random texts.
func TestMakeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	a := analysis.New()
	for range 3000 {
		text := randomText(r, r.IntN(400))
		q := queries[r.IntN(len(queries))]
		size := 10 + r.IntN(100)
		got := New(parse(q), size).Make(a, text, nil)
		check(t, text, got)
		want := reference(parse(q), size, text)
		if !equal(got, want) {
			t.Fatalf("Make(%q, size %d, %q)\n = %q\nwant %q", q, size, text, marked(got), marked(want))
		}
		if got := New(parse(q), size).Make(a, text, holds(text)); !equal(got, want) {
			t.Fatalf("Make(%q, size %d, %q) knowing its terms\n = %q\nwant %q", q, size, text, marked(got), marked(want))
		}
		// A part of a text, knowing its terms or not, reads alike.
		atStart, atEnd := r.IntN(2) == 0, r.IntN(2) == 0
		blind := New(parse(q), size).MakeIn(a, text, atStart, atEnd, nil)
		if got := New(parse(q), size).MakeIn(a, text, atStart, atEnd, holds(text)); !equal(got, blind) {
			t.Fatalf("MakeIn(%q, size %d, %q) knowing its terms\n = %q\nwant %q", q, size, text, marked(got), marked(blind))
		}
	}
}

// holds says which terms the scanned part of text holds, as the index
// would for the text.
func holds(text string) func(string) bool {
	terms := map[string]bool{}
	for _, t := range analysis.New().Terms(scanned(text)) {
		terms[t] = true
	}
	return func(t string) bool { return terms[t] }
}

func equal(a, b Snippet) bool {
	return a.Text == b.Text && slices.Equal(a.Highlights, b.Highlights)
}

// TestMakerReuse checks that a Maker's cache and scratch carry nothing
// from one text to the next.
func TestMakerReuse(t *testing.T) {
	m := New(parse("run server"), 40)
	a := analysis.New()
	texts := []string{"the server runs", "nothing here", "Running servers run", ""}
	for _, text := range append(texts, texts...) {
		if got, want := m.Make(a, text, nil), New(parse("run server"), 40).Make(a, text, nil); !equal(got, want) {
			t.Errorf("reused Maker on %q: %q, want %q", text, marked(got), marked(want))
		}
	}
}

// TestHugeText checks that a text of many megabytes costs MaxScan bytes.
func TestHugeText(t *testing.T) {
	text := strings.Repeat("lorem ipsum dolor ", 1<<20/3) + "needle"
	m := New(parse("needle lorem"), 0)
	a := analysis.New()
	began := time.Now()
	s := m.Make(a, text, nil)
	if !strings.HasPrefix(marked(s), "[lorem] ipsum") || strings.Contains(s.Text, "needle") {
		t.Errorf("snippet %q: want the start (the needle lies past MaxScan)", marked(s))
	}
	if d := time.Since(began); d > time.Second {
		t.Errorf("a 6 MB text took %v", d)
	}
}

func FuzzMake(f *testing.F) {
	f.Add("The dogs were Running fast.", "run", 20)
	f.Add("server http, http server \xff日本", `"http server" 本`, 10)
	f.Fuzz(func(t *testing.T, text, query string, size int) {
		size = 1 + size&0xff
		q := parse(query)
		got := New(q, size).Make(analysis.New(), text, nil)
		check(t, text, got)
		want := reference(q, size, text)
		if !equal(got, want) {
			t.Fatalf("Make(%q, size %d, %q)\n = %q\nwant %q", query, size, text, marked(got), marked(want))
		}
		if got := New(q, size).Make(analysis.New(), text, holds(text)); !equal(got, want) {
			t.Fatalf("Make(%q, size %d, %q) knowing its terms\n = %q\nwant %q", query, size, text, marked(got), marked(want))
		}
	})
}

// crawlTexts returns the texts of a crawl's pages (.html and .txt) as the
// indexer extracts them, at most limit: the sample crawl's, or those of
// $SNIPPET_CRAWL.
func crawlTexts(tb testing.TB, limit int) []string {
	tb.Helper()
	dir := cmp.Or(os.Getenv("SNIPPET_CRAWL"), "../examples/crawl")
	var texts []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(texts) >= limit {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch filepath.Ext(path) {
		case ".html":
			_, text := extract.HTMLDoc(data)
			texts = append(texts, string(text))
		case ".txt":
			texts = append(texts, string(extract.PlainText(data)))
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return texts
}

// crawlQueries returns the queries of the sample crawl, or those of
// $SNIPPET_QUERIES (qid<TAB>text lines).
func crawlQueries(tb testing.TB) []string {
	tb.Helper()
	data, err := os.ReadFile(cmp.Or(os.Getenv("SNIPPET_QUERIES"), "../examples/queries.txt"))
	if err != nil {
		tb.Fatal(err)
	}
	var qs []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		_, q, _ := strings.Cut(line, "\t")
		qs = append(qs, q)
	}
	return qs
}

// TestCrawlMatchesReference runs the scan against the plain maker on the
// sample crawl's pages and queries.
func TestCrawlMatchesReference(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the sample crawl")
	}
	texts, qs := crawlTexts(t, 400), crawlQueries(t)
	a := analysis.New()
	for i, text := range texts {
		q := parse(qs[i%len(qs)])
		if got, want := New(q, 0).Make(a, text, holds(text)), reference(q, DefaultSize, text); !equal(got, want) {
			t.Fatalf("query %q, page %d:\n got %q\nwant %q", qs[i%len(qs)], i, marked(got), marked(want))
		}
	}
}

// BenchmarkMake makes the snippets of each query's hits, as a request's
// ten would be made: one Maker per query, for the first ten pages that
// hold every term of the query (AND's hits), and reports the p50 and p99
// cost of one snippet, knowing the terms each page holds as the server
// does. $SNIPPET_CRAWL and $SNIPPET_QUERIES run it on
// another crawl (its first 3000 pages).
func BenchmarkMake(b *testing.B) {
	texts, qs := crawlTexts(b, 3000), crawlQueries(b)
	a := analysis.New()
	terms := make([]map[string]bool, len(texts))
	for i, text := range texts {
		terms[i] = map[string]bool{}
		for _, t := range a.Terms(text) {
			terms[i][t] = true
		}
	}
	type request struct {
		q    Query
		hits []int
	}
	var reqs []request
	for _, text := range qs {
		r := request{q: parse(text)}
		for i := 0; i < len(texts) && len(r.hits) < 10; i++ {
			all := len(r.q.Terms) > 0
			for _, t := range r.q.Terms {
				all = all && terms[i][t]
			}
			if all {
				r.hits = append(r.hits, i)
			}
		}
		if len(r.hits) > 0 {
			reqs = append(reqs, r)
		}
	}
	var costs []time.Duration
	n := 0
	for b.Loop() {
		r := reqs[n%len(reqs)]
		m := New(r.q, 0)
		for _, i := range r.hits {
			held := func(t string) bool { return terms[i][t] } // as the index tells
			began := time.Now()
			m.Make(a, texts[i], held)
			costs = append(costs, time.Since(began))
		}
		n++
	}
	slices.Sort(costs)
	b.ReportMetric(float64(costs[len(costs)/2].Nanoseconds()), "p50-ns/snippet")
	b.ReportMetric(float64(costs[len(costs)*99/100].Nanoseconds()), "p99-ns/snippet")
	b.ReportMetric(float64(len(costs))/float64(n), "snippets/op")
}

// TestWordFilterKeepsEveryStem checks that the scan's test of a word's
// first two letters (Maker.pairs) turns away no word that stems to a
// query term: for each word of an English prose sample and of Porter2's
// edge cases, a query of the word's own term must match it.
func TestWordFilterKeepsEveryStem(t *testing.T) {
	prose, err := os.ReadFile(filepath.Join("..", "analysis", "testdata", "english.txt"))
	if err != nil {
		t.Fatal(err)
	}
	words := strings.FieldsFunc(string(prose), func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_')
	})
	words = append(words, "dying", "Lying", "TYING", "skies", "skis", "aed", "ued", "oed", "ieds", "ied", "ies",
		"idly", "gently", "ugly", "early", "only", "singly", "news", "cries", "ties", "generously", "a", "I", "x1",
		"3com", "_init", "happy", "relational", "possibilities", "Y", "yes", "by", "abed", "ated")
	a := analysis.New()
	for _, w := range words {
		term, ok := a.Term([]byte(w))
		if !ok {
			continue
		}
		m := New(Query{Terms: []string{term}}, 0)
		if got := m.word(a, w); got != 0 {
			t.Errorf("word %q, stem %q: the query of its stem turns it away", w, term)
		}
	}
	// And the test does turn words away: "rain" begins no word of "run".
	if m := New(Query{Terms: []string{"run"}}, 0); m.word(a, "rain") >= 0 || m.word(a, "Running") != 0 {
		t.Errorf("query run: rain or Running misjudged")
	}
}
