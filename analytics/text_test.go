package analytics

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTextRoundTrip writes corpora as text and reads them back with a
// Lexer: the documents' word ids must be the decompressed ones, and the
// text must be the words joined by spaces, a line per document.
func TestTextRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	cases := map[string][][]string{
		"no documents":    nil,
		"empty documents": {{}, {}, {"a"}, {}},
		"random":          randomDocs(r, 60, 300, 50, 0.8),
		"utf-8 words":     {{"größe", "日本", "größe"}, {"x"}},
	}
	for name, docs := range cases {
		t.Run(name, func(t *testing.T) {
			c := corpusOf(t, docs)
			text, err := c.Text()
			if err != nil {
				t.Fatal(err)
			}
			var want strings.Builder
			for _, d := range docs {
				want.WriteString(strings.Join(d, " ") + "\n")
			}
			if string(text) != want.String() {
				t.Fatalf("Text() = %q, want %q", abbrev(string(text)), abbrev(want.String()))
			}
			checkLexed(t, c, text)
		})
	}
}

// TestLexerWhiteSpace reads text with every kind of ASCII white space
// between words: only newlines end documents.
func TestLexerWhiteSpace(t *testing.T) {
	got, err := NewLexer([]string{"a", "b"}).Docs([]byte("  a\t\tb\r\n\n\v\fb a \n"))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]uint32{{0, 1}, {}, {1, 0}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Docs = %v, want %v", got, want)
	}
}

func TestTextErrors(t *testing.T) {
	lex := NewLexer([]string{"a", "b"})
	for _, text := range []string{"a c\n", "a\nb", "b"} {
		if docs, err := lex.Docs([]byte(text)); err == nil {
			t.Errorf("Docs(%q) = %v, want an error", text, docs)
		}
	}
	for _, word := range []string{"a b", "a\tb", ""} {
		c := &Corpus{Dict: []string{word}, Grammar: corpusOf(t, nil).Grammar}
		if _, err := c.Text(); err == nil {
			t.Errorf("Text() with the word %q: no error", word)
		}
	}
}

// TestTextRealCrawl writes the compressed sample crawl as text and reads
// it back: the analysis never makes a word the text cannot hold.
func TestTextRealCrawl(t *testing.T) {
	c, _, _ := realCorpus(t)
	text, err := c.Text()
	if err != nil {
		t.Fatal(err)
	}
	checkLexed(t, c, text)
}

// checkLexed reads c's text back with a Lexer and compares the documents'
// word ids with the decompressed ones.
func checkLexed(t *testing.T, c *Corpus, text []byte) {
	t.Helper()
	got, err := NewLexer(c.Dict).Docs(text)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got, c.Decompress(), slices.Equal) {
		t.Errorf("Lexer.Docs(Text()) differs from Decompress()")
	}
}
