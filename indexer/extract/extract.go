package extract

import (
	"bytes"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// Kind says how a file is turned into text.
type Kind int

// The kinds of file.
const (
	Skip Kind = iota // not indexed
	HTML             // read with HTMLText
	Text             // read with PlainText
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case Skip:
		return "skip"
	case HTML:
		return "html"
	case Text:
		return "text"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// skipExt lists extensions of files that are never prose, skipped without
// sniffing their content.
var skipExt = map[string]bool{}

func init() {
	for _, ext := range strings.Fields(`
		.css .js .mjs .json .map .xml .rss .atom .csv .tsv .wasm
		.png .jpg .jpeg .gif .webp .bmp .ico .svg .tif .tiff .avif .heic
		.pdf .ps .eps .doc .docx .xls .xlsx .ppt .pptx .odt .ods .odp .rtf .epub
		.zip .gz .tgz .bz2 .xz .zst .7z .rar .tar .jar .war .apk .deb .rpm .iso .dmg
		.exe .dll .so .dylib .bin .o .a .class .pyc
		.woff .woff2 .ttf .otf .eot
		.mp3 .mp4 .m4a .m4v .wav .ogg .oga .ogv .flac .webm .avi .mov .mkv .mid .swf`) {
		skipExt[ext] = true
	}
}

var utf8BOM = []byte("\xef\xbb\xbf")

// Classify says how to read the file called name whose first bytes are head
// (at most the first 512 bytes are looked at, and only when the name's
// extension is not known).
func Classify(name string, head []byte) Kind {
	switch ext := strings.ToLower(filepath.Ext(name)); {
	case ext == ".html" || ext == ".htm":
		return HTML
	case ext == ".txt" || ext == ".md":
		return Text
	case skipExt[ext]:
		return Skip
	}
	ct := http.DetectContentType(bytes.TrimPrefix(head, utf8BOM))
	if strings.HasPrefix(ct, "text/html") {
		return HTML
	}
	return Skip
}

// HTMLText returns the title and visible text of the HTML page data: its
// non-blank text nodes outside script, style, noscript and template
// elements, character references decoded, joined with one space, as valid
// UTF-8.
func HTMLText(data []byte) []byte {
	_, text := HTMLDoc(data)
	return text
}

// HTMLDoc returns the page's title (Title's rules: the title element, else
// the first heading h1 to h6, else the first line of text) and its text as
// HTMLText gives it.
func HTMLDoc(data []byte) (title string, text []byte) {
	z := html.NewTokenizer(bytes.NewReader(data))
	// The text rarely outgrows the page; reserving that much spares the
	// copies of growing a large output.
	out := make([]byte, 0, len(data))
	templates := 0   // depth of open template elements
	skipRaw := false // the token after a script, style or noscript tag
	inTitle := false // the token after a title tag
	var titleTag, heading, firstLine string
	var headingText []byte // the first heading's text so far
	inHeading, headingDone := false, false
	var name [8]byte
	for {
		tt := z.Next()
		inRaw, titleRaw := skipRaw, inTitle
		skipRaw, inTitle = false, false
		switch tt {
		case html.ErrorToken: // io.EOF: there is no other error without SetMaxBuf
			return pickTitle(titleTag, heading, firstLine), out
		case html.TextToken:
			if inRaw || templates > 0 {
				continue
			}
			t := z.Text()
			if blank(t) {
				continue
			}
			if len(out) > 0 {
				out = append(out, ' ')
			}
			start := len(out)
			out = appendValid(out, t)
			switch {
			case titleRaw && titleTag == "":
				titleTag = cleanTitle(out[start:], false)
			case inHeading:
				headingText = append(append(headingText, ' '), out[start:]...)
			}
			if firstLine == "" {
				firstLine = Title(out[start:])
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			// The tokenizer reads raw text after these tags even when they
			// are written self-closing, as HTML does.
			switch tag := string(tagName(name[:], z.Raw())); tag {
			case "script", "style", "noscript":
				skipRaw = true
			case "template":
				templates++
			case "title":
				inTitle = true // its content is one raw text token
			case "h1", "h2", "h3", "h4", "h5", "h6":
				inHeading = !headingDone && templates == 0
			}
		case html.EndTagToken:
			switch tag := string(tagName(name[:], z.Raw())); tag {
			case "template":
				if templates > 0 {
					templates--
				}
			case "h1", "h2", "h3", "h4", "h5", "h6":
				if inHeading {
					inHeading = false
					heading = cleanTitle(headingText, false)
					headingDone = heading != ""
				}
			}
		}
	}
}

// pickTitle is the first non-empty of a page's title candidates, in order
// of preference.
func pickTitle(candidates ...string) string {
	for _, c := range candidates {
		if c != "" {
			return c
		}
	}
	return ""
}

// MaxTitleBytes bounds a title's length.
const MaxTitleBytes = 512

// Title returns the first non-blank line of text as a title: white space
// trimmed, each run of it made one space, and cut at MaxTitleBytes bytes
// (at a character's start). A plain-text file's title is its first
// non-blank line.
func Title(text []byte) string { return cleanTitle(text, true) }

// cleanTitle makes text a title as Title does: its first non-blank line
// if oneLine, else all of it.
func cleanTitle(text []byte, oneLine bool) string {
	var b []byte
	space := false
	for len(text) > 0 && len(b) < MaxTitleBytes {
		r, size := utf8.DecodeRune(text)
		if oneLine && r == '\n' && len(b) > 0 {
			break
		}
		text = text[size:]
		if unicode.IsSpace(r) {
			space = len(b) > 0
			continue
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		b = utf8.AppendRune(b, r)
	}
	for len(b) > MaxTitleBytes {
		_, size := utf8.DecodeLastRune(b)
		b = b[:len(b)-size]
	}
	return string(b)
}

// tagName returns the name of the tag token whose raw text is raw ("<name"
// or "</name" and the rest of the tag) in ASCII lower case, as the
// tokenizer reads it, stored in buf; or nil if the name is longer than buf.
// (Tokenizer.TagName would do, but allocates on every tag.)
func tagName(buf, raw []byte) []byte {
	raw = bytes.TrimPrefix(bytes.TrimPrefix(raw, []byte("<")), []byte("/"))
	for i, c := range raw {
		switch c {
		case ' ', '\n', '\r', '\t', '\f', '/', '>':
			return buf[:i]
		}
		if i == len(buf) {
			return nil
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return buf[:len(raw)]
}

// PlainText returns the text file data as text: data itself if it is valid
// UTF-8, else a copy with each run of invalid bytes replaced by U+FFFD.
func PlainText(data []byte) []byte {
	if utf8.Valid(data) {
		return data
	}
	return appendValid(make([]byte, 0, len(data)+len(data)/8), data)
}

// appendValid appends s to dst with each run of invalid UTF-8 replaced by
// one U+FFFD, as bytes.ToValidUTF8 does.
func appendValid(dst, s []byte) []byte {
	if utf8.Valid(s) {
		return append(dst, s...)
	}
	invalid := false // the last thing appended was a replacement for bad bytes
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size == 1 {
			if !invalid {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			}
			invalid = true
		} else {
			dst = append(dst, s[:size]...)
			invalid = false
		}
		s = s[size:]
	}
	return dst
}

// blank reports whether t is only ASCII white space.
func blank(t []byte) bool {
	for _, c := range t {
		switch c {
		case ' ', '\t', '\n', '\r', '\f':
		default:
			return false
		}
	}
	return true
}
