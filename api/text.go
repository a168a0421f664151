package api

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WriteText writes the hits as plain text, for a terminal: a line with
// the rank, the score and the title (the URL when none is stored), then
// the URL and the snippet indented under it.
func (r SearchResponse) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for i, h := range r.Hits {
		fmt.Fprintf(bw, "%3d  %8.4f  %s\n", r.Start+i+1, h.Score, printable(cmp.Or(h.Title, h.URL)))
		if h.Title != "" {
			fmt.Fprintf(bw, "%15s%s\n", "", printable(h.URL))
		}
		if h.Snippet != "" {
			fmt.Fprintf(bw, "%15s%s\n", "", printable(h.Snippet))
		}
	}
	return bw.Flush()
}

// printable percent-encodes, byte by byte, the characters of a URL, title
// or snippet that do not print (newlines, tabs, terminal escapes, invalid
// UTF-8), so that a file name or a document's text can neither forge a
// result line nor drive the terminal.
func printable(u string) string {
	var b strings.Builder
	for i := 0; i < len(u); {
		r, n := utf8.DecodeRuneInString(u[i:])
		if !unicode.IsPrint(r) || r == utf8.RuneError && n == 1 {
			for _, c := range []byte(u[i : i+n]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		} else {
			b.WriteString(u[i : i+n])
		}
		i += n
	}
	return b.String()
}
