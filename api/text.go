package api

import (
	"bufio"
	"cmp"
	"fmt"
	"io"

	"github.com/gpusearch/gpusearch/internal/escape"
)

// WriteText writes the hits as plain text, for a terminal: a line with
// the rank, the score and the title (the URL when none is stored), then
// the URL and the snippet indented under it. Characters that do not
// print are percent-encoded (escape.Percent), so that a file name or a
// document's text can neither forge a result line nor drive the terminal.
func (r SearchResponse) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for i, h := range r.Hits {
		fmt.Fprintf(bw, "%3d  %8.4f  %s\n", r.Start+i+1, h.Score, escape.Percent(cmp.Or(h.Title, h.URL), nil))
		if h.Title != "" {
			fmt.Fprintf(bw, "%15s%s\n", "", escape.Percent(h.URL, nil))
		}
		if h.Snippet != "" {
			fmt.Fprintf(bw, "%15s%s\n", "", escape.Percent(h.Snippet, nil))
		}
	}
	return bw.Flush()
}
