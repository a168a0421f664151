package extract

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHTMLText(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", ""},
		{"plain", "just text", "just text"},
		{"one space between nodes", "<p>Hello <b>world</b></p><p>again</p>", "Hello  world again"},
		{"elements split words", "foo<b>bar</b>", "foo bar"},
		{"title kept", "<html><head><title>T &amp; C</title></head><body>body</body></html>", "T & C body"},
		{"script dropped", "a<script>var s = '<b>no</b>';</script>b", "a b"},
		{"style dropped", "a<style>p { color: red }</style>b", "a b"},
		{"noscript dropped", "a<noscript><p>enable JS</p></noscript>b", "a b"},
		{"template dropped", "a<template><p>t</p></template>b", "a b"},
		{"nested templates", "<template>a<template>b</template>c</template>d", "d"},
		{"script in template", "<template><script>x</script>y</template>z", "z"},
		{"stray end tags", "</template></script>a</style>b", "a b"},
		{"unclosed template", "a<template>b<p>c", "a"},
		{"uppercase tags", "<SCRIPT>x</SCRIPT><Style>y</Style>z", "z"},
		{"tag name ends at white space", "<script\ntype=text/javascript>x</script>y", "y"},
		{"longer names are other tags", "<scripts>a</scripts><templates>b</templates>c", "a b c"},
		{"self-closing template", "a<template/>b</template>c", "a c"},
		{"self-closing script", "<script src=x.js />hidden</script>after", "after"},
		{"script never closes", "before<script>if (a < b) { document.write('<p>hidden</p>')", "before"},
		{"style never closes", "before<style>p { color: red }", "before"},
		{"comments dropped", "a<!-- hidden -->b<!-- unterminated", "a b"},
		{"cdata is a comment", "a<![CDATA[x]]>b", "a b"},
		{"doctype dropped", "<!DOCTYPE html><p>x", "x"},
		{"attributes dropped", `<img alt="alt text" title="tip"><a href="/x" title="t">link</a>`, "link"},
		{"entities", "&lt;tag&gt; &eacute;t&eacute; &#x41;&#66; &amp;&nbsp;x", "<tag> été AB &\u00a0x"},
		{"bad entities", "&bogus; &#xD800; &#0;", "&bogus; \uFFFD \uFFFD"},
		{"unclosed tags", "<p>one<p>two<div>three", "one two three"},
		{"nested text", "<div><span>a</span><em>b<i>c</i></em>d</div>", "a b c d"},
		{"blank nodes dropped", "<ul>\n  <li>a</li>\n  <li>b</li>\n</ul>\n", "a b"},
		{"less-than in text", "a < b", "a < b"},
		{"textarea kept", "<textarea>typed &amp; <b>kept</b></textarea>", "typed & <b>kept</b>"},
		{"plaintext", "<plaintext><b>x", "<b>x"},
		{"invalid utf-8", "<p>caf\xe9 \xff\xfe</p>", "caf\uFFFD \uFFFD"},
		{"truncated tag", "text<di", "text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(HTMLText([]byte(tt.in))); got != tt.want {
				t.Errorf("HTMLText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestHTMLTextPathological runs inputs that would cost html.Parse a deep
// tree or a huge allocation; they must stay linear.
func TestHTMLTextPathological(t *testing.T) {
	const depth = 100000
	r := rand.New(rand.NewPCG(3, 4))
	blob := make([]byte, 20<<20)
	for i := range blob {
		blob[i] = byte(r.Uint32())
	}
	deepDivs := []byte(strings.Repeat("<div>", depth) + "deep" + strings.Repeat("</div>", depth))
	deepUnclosed := []byte(strings.Repeat("<b><i>", depth) + "deep")
	deepTemplates := []byte(strings.Repeat("<template>", depth) + "x" + strings.Repeat("</template>", depth) + "out")
	hugeNode := bytes.Repeat([]byte("word "), 4<<20)
	// HTMLText reserves an output as long as its input; beyond that, deep
	// nesting must cost nothing per element.
	tests := []struct {
		name     string
		in       []byte
		want     string // "" means: check only validity
		maxAlloc int
	}{
		{"deep divs", deepDivs, "deep", len(deepDivs) + 64<<10},
		{"deep unclosed", deepUnclosed, "deep", len(deepUnclosed) + 64<<10},
		{"deep templates", deepTemplates, "out", len(deepTemplates) + 64<<10},
		{"binary blob", blob, "", 3 * len(blob)},
		// The tokenizer doubles its buffer until the one token fits.
		{"one huge text node", hugeNode, "", 8 * len(hugeNode)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []byte
			n := allocated(func() { got = HTMLText(tt.in) })
			if !utf8.Valid(got) {
				t.Errorf("HTMLText(%s) is not valid UTF-8", tt.name)
			}
			if tt.want != "" && string(got) != tt.want {
				t.Errorf("HTMLText(%s) = %.40q, want %q", tt.name, got, tt.want)
			}
			if n > uint64(tt.maxAlloc) {
				t.Errorf("HTMLText(%s) allocated %d bytes, want at most %d", tt.name, n, tt.maxAlloc)
			}
			t.Logf("%s: %d bytes in, %d out, %d allocated", tt.name, len(tt.in), len(got), n)
		})
	}
}

func TestPlainText(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", ""},
		{"valid", "café <b>&amp;</b>\r\n", "café <b>&amp;</b>\r\n"},
		{"invalid byte", "caf\xe9!", "caf\uFFFD!"},
		{"invalid run", "a\xff\xfe\xfdb", "a\uFFFDb"},
		{"truncated", "日本\xe6\x97", "日本\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(PlainText([]byte(tt.in))); got != tt.want {
				t.Errorf("PlainText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	valid := []byte("no copy needed")
	if got := PlainText(valid); &got[0] != &valid[0] {
		t.Errorf("PlainText(valid) returned a copy, want the input itself")
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		head string
		want Kind
	}{
		{"index.html", "", HTML},
		{"a/b/PAGE.HTM", "binary\x00", HTML},
		{"notes.txt", "", Text},
		{"README.md", "<html>", Text},
		{"Notes.TXT", "", Text},
		{"style.css", "<html>", Skip},
		{"app.js", "<!DOCTYPE html>", Skip},
		{"photo.JPG", "", Skip},
		{"paper.pdf", "%PDF-1.7", Skip},
		{"archive.tar.gz", "", Skip},
		{"page", "<!DOCTYPE html><html>", HTML},
		{"page", "  \n<HTML><body>", HTML},
		{"page", "\xef\xbb\xbf<!doctype html>", HTML},
		{"page", "<p>a paragraph", HTML},
		{"page", "plain words only", Skip},
		{"page", "\x89PNG\r\n\x1a\n", Skip},
		{"page", "", Skip},
		{"page.php", "<html><head>", HTML},
		{"page.php", "<?php echo 1;", Skip},
		{"dir.v2/page", "<html>", HTML},
		{"index.html?x=1", "<html>", HTML},
	}
	for _, tt := range tests {
		if got := Classify(tt.name, []byte(tt.head)); got != tt.want {
			t.Errorf("Classify(%q, %q) = %v, want %v", tt.name, tt.head, got, tt.want)
		}
	}
}

func TestKindString(t *testing.T) {
	tests := []struct {
		k    Kind
		want string
	}{{Skip, "skip"}, {HTML, "html"}, {Text, "text"}, {Kind(7), "Kind(7)"}}
	for _, tt := range tests {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(tt.k), got, tt.want)
		}
	}
}

func FuzzHTMLText(f *testing.F) {
	for _, s := range []string{
		"", "<p>a</p>", "<script>x", "<template><template>x</template>", "&amp;&#xD800;",
		"<title>t</title><!-- c -->", "caf\xe9", "<a href='x'>y</a>", "<plaintext>z",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := HTMLText(data)
		if !utf8.Valid(got) {
			t.Fatalf("HTMLText(%q) = %q, not valid UTF-8", data, got)
		}
		// Text without markup, references or carriage returns is its own
		// single text node.
		if !bytes.ContainsAny(data, "<&\r") && utf8.Valid(data) && !blank(data) && !bytes.Equal(got, data) {
			t.Fatalf("HTMLText(%q) = %q, want the input", data, got)
		}
	})
}

// page builds a synthetic page of about n bytes: a head with a style sheet
// and a script, then sections of links and paragraphs with attributes and
// entities, as real pages mix them.
func page(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A page &amp; its title</title>` +
		`<style>body { font: 14px sans-serif } .nav a { color: #333 }</style>` +
		`<script>window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);}</script></head><body>`)
	for i := 0; b.Len() < n; i++ {
		b.WriteString(`<div class="section" id="s` + strconv.Itoa(i) + `"><ul class="nav"><li><a href="/docs/` + strconv.Itoa(i) +
			`">Documentation</a></li><li><a href="/about">About us</a></li></ul>` +
			"\n<p>The indexer walks the crawl directory, reads each file and keeps the words a reader sees; " +
			"scripts, style sheets and comments are dropped, &eacute;ntities are decoded &mdash; and the rest " +
			"is joined with single spaces.</p><!-- tracking pixel --><img src=\"/p.gif\" alt=\"\">\n</div>\n")
	}
	b.WriteString("</body></html>")
	return b.Bytes()
}

func BenchmarkHTMLText(b *testing.B) {
	data := page(1 << 20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		HTMLText(data)
	}
}

func TestHTMLDocTitle(t *testing.T) {
	long := strings.Repeat("\u00e9", 300) // 600 bytes
	tests := []struct {
		name, in, want string
	}{
		{"title element", "<html><head><title> T &amp;\n  C </title></head><body><h1>H</h1>body</body></html>", "T & C"},
		{"script in title stays text", "<title>a <script>x()</script> b</title><p>p", "a <script>x()</script> b"},
		{"blank title: heading", "<title>  </title><p>intro</p><h2>The <em>heading</em></h2><h1>later</h1>", "The heading"},
		{"first heading wins", "<h3>one</h3><h1>two</h1>", "one"},
		{"empty heading skipped", "<h1> </h1><h2>two</h2>", "two"},
		{"script in heading skipped", "<h1><script>x</script>real</h1>", "real"},
		{"no title or heading: first line", "<body>\n<p>first  line\nsecond</p><p>next</p>", "first line"},
		{"nothing", "<script>x</script>", ""},
		{"title in template ignored", "<template><title>t</title></template><p>p", "p"},
		{"capped", "<title>" + long + "</title>", long[:512]},
		{"invalid utf-8", "<title>caf\xe9</title>", "caf\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			title, text := HTMLDoc([]byte(tt.in))
			if title != tt.want {
				t.Errorf("HTMLDoc(%q) title = %q, want %q", tt.in, title, tt.want)
			}
			if want := HTMLText([]byte(tt.in)); !bytes.Equal(text, want) {
				t.Errorf("HTMLDoc(%q) text = %q, HTMLText gives %q", tt.in, text, want)
			}
		})
	}
}

func TestTitle(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"\n\n  \t\n", ""},
		{"  first\tline  \nsecond", "first line"},
		{"\n\nthird", "third"},
		{"a\u00a0\u3000b", "a b"},
		{strings.Repeat("x", 600), strings.Repeat("x", 512)},
		{strings.Repeat("x", 511) + "\u00e9", strings.Repeat("x", 511)},
	}
	for _, tt := range tests {
		if got := Title([]byte(tt.in)); got != tt.want {
			t.Errorf("Title(%.40q) = %.40q, want %.40q", tt.in, got, tt.want)
		}
	}
}
