package gpubench

import (
	"io"
	"time"

	"github.com/gpusearch/gpusearch/index"
)

// Run is how the reports of the queries, cache and multi runs end: notes
// on reading them, the run's length, its command line and when it ran.
type Run struct {
	Notes   []string `json:"notes"`
	Elapsed float64  `json:"elapsed_s"`
	Command string   `json:"command"`
	Date    string   `json:"date"`
}

// newRun stamps a run of command, now, with its notes.
func newRun(command string, notes ...string) Run {
	return Run{Notes: notes, Command: command, Date: time.Now().UTC().Format(time.RFC3339)}
}

// progressTo is where a run reports its progress: w, or nowhere.
func progressTo(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// describeIndex describes ix for a report.
func describeIndex(ix *index.Index) QueriesIndex {
	dc, fc := ix.Codecs()
	return QueriesIndex{Dir: ix.Dir(), Docs: ix.NumDocs(), Postings: ix.Meta().Postings, DocIDCodec: dc.Name(), FreqCodec: fc.Name()}
}
