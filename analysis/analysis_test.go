package analysis

import (
	"bytes"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/segment"
	"github.com/kljensen/snowball/english"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"blank", " \t\r\n ", nil},
		{"stem and lowercase", "The Running dogs' 42 cafés", []string{"the", "run", "dog", "42", "café"}},
		{"stop words kept", "to be or not to be", []string{"to", "be", "or", "not", "to", "be"}},
		{"porter2", "generously connection connected connecting relational",
			[]string{"generous", "connect", "connect", "connect", "relat"}},
		{"punctuation dropped", "Hello, world! (test) -- a+b=c <x>", []string{"hello", "world", "test", "a", "b", "c", "x"}},
		{"numbers keep inner punctuation", "3.14 1,000 v2.0 2024-01-05", []string{"3.14", "1,000", "v2.0", "2024", "01", "05"}},
		{"abbreviations", "e.g. U.S.A.", []string{"e.g", "u.s.a"}},
		{"apostrophes", "don't it's O'Neil's", []string{"don't", "it", "o'neil"}},
		{"underscores", "__init__ foo_bar", []string{"__init__", "foo_bar"}},
		{"urls", "me@example.com http://x.org/a?b=c", []string{"me", "example.com", "http", "x.org", "a", "b", "c"}},
		{"non-ascii case", "ÉCOLE Straße", []string{"école", "straße"}},
		{"combining marks", "ca\u0301fe\u0301", []string{"ca\u0301fe\u0301"}},
		{"other scripts", "Ελληνικά русский עברית", []string{"ελληνικά", "русский", "עברית"}},
		{"ideographs and kana", "日本語のテキスト、カタカナ。ひらがな",
			[]string{"日", "本", "語", "の", "テキスト", "カタカナ", "ひ", "ら", "が", "な"}},
		{"hangul", "한국어 단어", []string{"한국어", "단어"}},
		{"emoji dropped", "😀 emoji 🇫🇷 flag", []string{"emoji", "flag"}},
		{"byte order mark", "\ufeffbom", []string{"bom"}},
		{"replacement char separates", "abc\uFFFDdef", []string{"abc", "def"}},
		{"invalid byte separates", "abc\xffdef", []string{"abc", "def"}},
		{"invalid after space", "a \xff\xfe b", []string{"a", "b"}},
		{"invalid after ideograph", "日\xff本", []string{"日", "本"}},
		{"truncated sequence", "caf\xc3", []string{"caf"}},
		{"only invalid", "\xff\xfe\x80", nil},
		{"longest token", strings.Repeat("7", MaxTokenLen), []string{strings.Repeat("7", MaxTokenLen)}},
		{"too long token dropped", "a " + strings.Repeat("7", MaxTokenLen+1) + " b", []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := New().Terms(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("Terms(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// reference analyzes valid UTF-8 the plain way: one segmenter over the
// whole text, no cache, no chunks.
func reference(text []byte) []string {
	var terms []string
	s := segment.NewWordSegmenterDirect(text)
	for s.Segment() {
		switch s.Type() {
		case segment.Letter, segment.Number, segment.Ideo, segment.Kana:
			if len(s.Bytes()) <= MaxTokenLen {
				terms = append(terms, english.Stem(strings.ToLower(s.Text()), true))
			}
		}
	}
	return terms
}

// pieces are the building blocks of randomText: words, numbers, mid-word
// punctuation, separators, combining marks, CJK and long runs.
var pieces = []string{
	"the", "Running", "dogs", "café", "don't", "3", ".", "14", ",", "'", "\"", ":", ";", "_",
	" ", " ", " ", "\n", "\r\n", "\t", "-", "(", ")", "!", "?", "/",
	"\u0301", "\u200d", "\u00ad", "\u00a0", "\u3000", "、", "。",
	"日", "本", "ひ", "カタ", "한국", "ελλ", "עב", "ไทย", "😀", "\uFFFD",
	strings.Repeat("x", 40), strings.Repeat("9", 300),
}

func randomText(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.Bytes()
}

func collect(a *Analyzer, text []byte) []string {
	var terms []string
	a.Analyze(text, func(t string) { terms = append(terms, t) })
	return terms
}

// TestAnalyzeMatchesReference checks that the stem cache (also when it is
// cleared often) and the chunking change nothing.
func TestAnalyzeMatchesReference(t *testing.T) {
	configs := []struct {
		name                            string
		cacheCap, chunkSize, chunkLimit int
	}{
		{"default", defaultCacheCap, defaultChunkSize, defaultChunkLimit},
		{"tiny cache", 3, defaultChunkSize, defaultChunkLimit},
		{"chunks of 1", defaultCacheCap, 1, 1 << 30},
		{"chunks of 7", 5, 7, 1 << 30},
		{"chunks of 64", defaultCacheCap, 64, 1 << 30},
	}
	r := rand.New(rand.NewPCG(1, 2))
	var texts [][]byte
	for range 200 {
		texts = append(texts, randomText(r, r.IntN(2000)))
	}
	prose, err := os.ReadFile("testdata/english.txt")
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, prose)
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			a := New()
			a.cacheCap, a.chunkSize, a.chunkLimit = c.cacheCap, c.chunkSize, c.chunkLimit
			for _, text := range texts {
				want := reference(text)
				for pass := range 2 { // the second pass hits the cache
					if got := collect(a, text); !slices.Equal(got, want) {
						t.Fatalf("pass %d: Analyze(%q) = %q, want %q", pass, text, got, want)
					}
				}
			}
		})
	}
}

// TestShortTextsMatchReference compares Analyze with the plain segmenter
// on every text of up to five pieces drawn from those that decide where
// an ASCII word ends: letters, digits and '_', separators, mid-word
// punctuation, a non-ASCII letter, a combining mark and a joiner, whole
// and in chunks of two bytes.
func TestShortTextsMatchReference(t *testing.T) {
	alphabet := []string{"a", "1", "_", " ", "-", ".", ":", "'", "\"", "é", "\u0301", "\u200d"}
	whole, chunked := New(), New()
	chunked.chunkSize, chunked.chunkLimit = 2, 1<<30
	var text []byte
	var walk func(n int)
	walk = func(n int) {
		want := reference(text)
		for _, a := range []*Analyzer{whole, chunked} {
			if got := collect(a, text); !slices.Equal(got, want) {
				t.Fatalf("Analyze(%q), chunk size %d = %q, want %q", text, a.chunkSize, got, want)
			}
		}
		if n == 0 {
			return
		}
		for _, p := range alphabet {
			text = append(text, p...)
			walk(n - 1)
			text = text[:len(text)-len(p)]
		}
	}
	walk(5)
}

// TestHardCut shows the one case where chunking shows: no safe boundary
// within chunkLimit bytes, so a word is split there.
func TestHardCut(t *testing.T) {
	a := New()
	a.chunkSize, a.chunkLimit = 4, 8
	text := "1234567890123456"
	want := []string{"12345678", "90123456"}
	if got := a.Terms(text); !slices.Equal(got, want) {
		t.Errorf("Terms(%q) with chunkLimit 8 = %q, want %q", text, got, want)
	}
}

func TestValidPrefix(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"plain ascii text, longer than eight bytes", 41},
		{"café", 5},
		{"\xff", 0},
		{"abcdefghij\xffk", 10},
		{"日本\xe6\x97", 6},
		{"ok\xed\xa0\x80", 2}, // surrogate half
	}
	for _, tt := range tests {
		if got := validPrefix([]byte(tt.in)); got != tt.want {
			t.Errorf("validPrefix(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestAnalyzeNoAllocs checks that a warm Analyzer allocates nothing.
func TestAnalyzeNoAllocs(t *testing.T) {
	text, err := os.ReadFile("testdata/english.txt")
	if err != nil {
		t.Fatal(err)
	}
	a := New()
	n := 0
	emit := func(string) { n++ }
	a.Analyze(text, emit)
	if allocs := testing.AllocsPerRun(20, func() { a.Analyze(text, emit) }); allocs != 0 {
		t.Errorf("Analyze on a warm Analyzer: %v allocations per run, want 0", allocs)
	}
}

// checkOffsets checks that AnalyzeOffsets emits Analyze's terms, each at
// a segment of text that analyzes to that term alone, in order.
func checkOffsets(t *testing.T, a *Analyzer, text []byte) {
	t.Helper()
	want := collect(a, text)
	var got []string
	last := 0
	a.AnalyzeOffsets(text, func(term string, start, end int) {
		got = append(got, term)
		if start < last || end <= start || end > len(text) {
			t.Fatalf("AnalyzeOffsets(%q): %q at [%d,%d) after %d", text, term, start, end, last)
		}
		if alone := collect(New(), text[start:end]); len(alone) != 1 || alone[0] != term {
			t.Fatalf("AnalyzeOffsets(%q): %q at [%d,%d), which analyzes to %q", text, term, start, end, alone)
		}
		last = end
	})
	if !slices.Equal(got, want) {
		t.Fatalf("AnalyzeOffsets(%q) = %q, want Analyze's %q", text, got, want)
	}
}

func TestAnalyzeOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	a := New()
	a.chunkSize, a.chunkLimit = 7, 1<<30
	for _, text := range []string{"", "Running dogs", "\xffcafé\xff\xffdon't 3.14 日本", "a  \u0301b"} {
		checkOffsets(t, a, []byte(text))
	}
	for range 300 {
		checkOffsets(t, a, randomText(r, 200))
	}
}

func BenchmarkAnalyze(b *testing.B) {
	para, err := os.ReadFile("testdata/english.txt")
	if err != nil {
		b.Fatal(err)
	}
	text := bytes.Repeat(para, (1<<20)/len(para))
	a := New()
	terms := 0
	emit := func(string) { terms++ }
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		a.Analyze(text, emit)
	}
	b.ReportMetric(float64(terms)/float64(b.N)/float64(len(text))*1e6, "terms/MB")
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range pieces {
		f.Add([]byte(s))
	}
	f.Add([]byte("The Running dogs' 42 cafés\xff日\xff本"))
	f.Fuzz(func(t *testing.T, text []byte) {
		a := New()
		a.chunkSize, a.chunkLimit = 5, 1<<30
		checkOffsets(t, a, text)
		got := collect(a, text)
		for _, term := range got {
			if term == "" || !utf8.ValidString(term) {
				t.Fatalf("Analyze(%q) emitted %q", text, term)
			}
		}
		if utf8.Valid(text) {
			if want := reference(text); !slices.Equal(got, want) {
				t.Fatalf("Analyze(%q) = %q, want %q", text, got, want)
			}
		}
	})
}
