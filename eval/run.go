package eval

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/gpusearch/gpusearch/internal/escape"
	"github.com/gpusearch/gpusearch/query"
)

// MaxRunDepth is the usual depth of a TREC run: the most results a query
// gets in one (search --trec defaults to it).
const MaxRunDepth = 1000

// Result is one line of a run.
type Result struct {
	DocNo string
	Rank  int
	Score float64
}

// Run is a TREC run: query id -> results in file order.
type Run map[string][]Result

// ReadRun reads a TREC run ("qid Q0 docno rank score tag" lines).
func ReadRun(r io.Reader) (Run, error) {
	run := Run{}
	seen := map[string]map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 6 {
			return nil, fmt.Errorf("eval: run line %d: %d fields, want 6 (qid Q0 docno rank score tag)", line, len(f))
		}
		qid, docno := f[0], f[2]
		rank, err := strconv.Atoi(f[3])
		if err != nil {
			return nil, fmt.Errorf("eval: run line %d: rank %q is not an integer", line, f[3])
		}
		score, err := strconv.ParseFloat(f[4], 64)
		if err != nil || math.IsNaN(score) {
			return nil, fmt.Errorf("eval: run line %d: score %q is not a number", line, f[4])
		}
		if seen[qid] == nil {
			seen[qid] = map[string]bool{}
		}
		if seen[qid][docno] {
			return nil, fmt.Errorf("eval: run line %d: query %s lists document %s twice", line, qid, docno)
		}
		seen[qid][docno] = true
		run[qid] = append(run[qid], Result{DocNo: docno, Rank: rank, Score: score})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: reading run: %w", err)
	}
	return run, nil
}

// Write writes the run in TREC format with the given tag, queries in ID
// order (see CompareIDs), each query's results in their slice order.
func (run Run) Write(w io.Writer, tag string) error {
	if err := checkField("tag", tag); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for _, qid := range sortedIDs(run) {
		if err := checkField("query id", qid); err != nil {
			return err
		}
		for _, r := range run[qid] {
			if err := checkField("docno", r.DocNo); err != nil {
				return err
			}
			writeLine(bw, qid, r.DocNo, r.Rank, strconv.FormatFloat(r.Score, 'g', -1, 64), tag)
		}
	}
	return bw.Flush()
}

// WriteRun writes one query's hits as run lines: rank i+1 for the i-th
// hit written, docno(hit.DocID) as the docno, the float32 score in its
// shortest exact form. A hit whose docno was already written for this
// call is skipped. qid, tag and every docno must be non-empty and free of
// white space.
func WriteRun(w io.Writer, qid string, hits []query.Hit, docno func(docid uint32) string, tag string) error {
	if err := checkField("query id", qid); err != nil {
		return err
	}
	if err := checkField("tag", tag); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	seen := make(map[string]bool, len(hits))
	rank := 0
	for _, h := range hits {
		d := docno(h.DocID)
		if err := checkField("docno", d); err != nil {
			return fmt.Errorf("%w (document %d)", err, h.DocID)
		}
		if seen[d] {
			continue
		}
		seen[d] = true
		rank++
		writeLine(bw, qid, d, rank, strconv.FormatFloat(float64(h.Score), 'g', -1, 32), tag)
	}
	return bw.Flush()
}

func writeLine(w *bufio.Writer, qid, docno string, rank int, score, tag string) {
	w.WriteString(qid)
	w.WriteString(" Q0 ")
	w.WriteString(docno)
	w.WriteByte(' ')
	w.WriteString(strconv.Itoa(rank))
	w.WriteByte(' ')
	w.WriteString(score)
	w.WriteByte(' ')
	w.WriteString(tag)
	w.WriteByte('\n')
}

// checkField refuses a value that would not survive as one field of a
// white-space separated line.
func checkField(what, s string) error {
	if s == "" {
		return fmt.Errorf("eval: empty %s", what)
	}
	if strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		return fmt.Errorf("eval: %s %q contains white space", what, s)
	}
	return nil
}

// DocNo returns the docno of a document URL or crawl path: its last path
// element without the extension ("crawl/1400.txt" -> "1400",
// "http://host/a/b.html" -> "b"). A query string or fragment is dropped
// first; a name that is all extension (".profile") is kept whole. A
// docno is one field of a white-space separated line, so white space,
// other unprintable characters, invalid UTF-8 and '%' are percent-encoded
// byte by byte ("my page.html" -> "my%20page", "100%.txt" -> "100%25"):
// every document keeps a docno and its rank in a run, and distinct names
// keep distinct docnos.
func DocNo(url string) string {
	if i := strings.IndexAny(url, "?#"); i >= 0 && strings.Contains(url, "://") {
		url = url[:i]
	}
	base := path.Base(strings.TrimRight(url, "/"))
	if ext := path.Ext(base); ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	return escape.Percent(base, func(r rune) bool { return r == '%' || unicode.IsSpace(r) })
}

// RunQueries answers every query with search and writes the hits as one
// run to w (see WriteRun); it stops at the first error or when ctx ends.
func RunQueries(ctx context.Context, w io.Writer, qs []Query, search func(ctx context.Context, text string) ([]query.Hit, error), docno func(docid uint32) string, tag string) error {
	bw := bufio.NewWriter(w)
	for _, q := range qs {
		if err := ctx.Err(); err != nil {
			return err
		}
		hits, err := search(ctx, q.Text)
		if err != nil {
			return fmt.Errorf("eval: query %s: %w", q.ID, err)
		}
		if err := WriteRun(bw, q.ID, hits, docno, tag); err != nil {
			return err
		}
	}
	return bw.Flush()
}
