package collection

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpusearch/gpusearch/eval"
)

// Formats lists the source formats Read accepts.
var Formats = []string{"cacm", "cranfield", "rfc"}

// Doc is one document: its docno and its text, held in memory (Text) or
// in a file that Write copies (Path, gunzipped when it ends in ".gz").
type Doc struct {
	ID    string
	Text  string
	Path  string
	Title string // the document's title where the source names one (WriteHTML)
}

// Collection is a converted test collection.
type Collection struct {
	Docs    []Doc
	Queries []eval.Query
	Qrels   eval.Qrels
}

// Read converts the collection in srcDir, whose layout format names.
func Read(format, srcDir string) (*Collection, error) {
	switch format {
	case "cranfield":
		return ReadCranfield(srcDir)
	case "cacm":
		return ReadCACM(srcDir)
	case "rfc":
		return ReadRFC(srcDir)
	}
	return nil, fmt.Errorf("collection: unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

// QueriesWithJudgments counts the queries that have at least one relevant
// document.
func (c *Collection) QueriesWithJudgments() int {
	n := 0
	for _, q := range c.Queries {
		if c.Qrels.NumRelevant(q.ID) > 0 {
			n++
		}
	}
	return n
}

// check verifies that ids are unique and that the qrels name known
// queries and documents.
func (c *Collection) check() error {
	docs := make(map[string]bool, len(c.Docs))
	for _, d := range c.Docs {
		if docs[d.ID] {
			return fmt.Errorf("collection: document %s appears twice", d.ID)
		}
		docs[d.ID] = true
	}
	queries := make(map[string]bool, len(c.Queries))
	for _, q := range c.Queries {
		if queries[q.ID] {
			return fmt.Errorf("collection: query %s appears twice", q.ID)
		}
		if strings.TrimSpace(q.Text) == "" {
			return fmt.Errorf("collection: query %s has no text", q.ID)
		}
		queries[q.ID] = true
	}
	for qid, judged := range c.Qrels {
		if !queries[qid] {
			return fmt.Errorf("collection: qrels judge unknown query %s", qid)
		}
		for d := range judged {
			if !docs[d] {
				return fmt.Errorf("collection: qrels of query %s name unknown document %s", qid, d)
			}
		}
	}
	return nil
}

// Write writes the collection under dir (see the package doc).
func (c *Collection) Write(dir string) error { return c.write(dir, false) }

// WriteHTML is Write with each document an HTML page, <docno>.html: its
// Title in <title> (none when empty) and its text in <pre>, both
// escaped, so that an indexer finds the source's title where it looks
// for a page's.
func (c *Collection) WriteHTML(dir string) error { return c.write(dir, true) }

func (c *Collection) write(dir string, html bool) error {
	crawl := filepath.Join(dir, "crawl")
	if ents, err := os.ReadDir(crawl); err == nil && len(ents) > 0 {
		return fmt.Errorf("collection: %s already holds files; convert into a new folder", crawl)
	}
	if err := os.MkdirAll(crawl, 0o755); err != nil {
		return fmt.Errorf("collection: %w", err)
	}
	for _, d := range c.Docs {
		var err error
		if html {
			err = writeHTMLDoc(filepath.Join(crawl, d.ID+".html"), d)
		} else {
			err = writeDoc(filepath.Join(crawl, d.ID+".txt"), d)
		}
		if err != nil {
			return err
		}
	}
	if err := writeFile(filepath.Join(dir, "queries.txt"), func(w io.Writer) error {
		return eval.WriteQueries(w, prose(c.Queries))
	}); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "qrels.txt"), c.Qrels.Write)
}

// prose drops the double quotes of the queries' texts: a queries file is
// query syntax, where quotes make phrases (and an odd number of them is
// an error), but a collection's topics are prose, evaluated as words.
func prose(qs []eval.Query) []eval.Query {
	out := make([]eval.Query, len(qs))
	for i, q := range qs {
		out[i] = eval.Query{ID: q.ID, Text: strings.ReplaceAll(q.Text, `"`, " ")}
	}
	return out
}

// writeDoc writes one document file.
func writeDoc(path string, d Doc) error {
	if d.Path == "" {
		return writeFile(path, func(w io.Writer) error {
			_, err := io.WriteString(w, d.Text)
			return err
		})
	}
	src, err := openText(d.Path)
	if err != nil {
		return err
	}
	defer src.Close()
	return writeFile(path, func(w io.Writer) error {
		_, err := io.Copy(w, src)
		if err != nil {
			return fmt.Errorf("collection: %s: %w", d.Path, err)
		}
		return nil
	})
}

// writeHTMLDoc writes one document as an HTML page.
func writeHTMLDoc(path string, d Doc) error {
	text := d.Text
	if d.Path != "" {
		src, err := openText(d.Path)
		if err != nil {
			return err
		}
		b, err := io.ReadAll(src)
		src.Close()
		if err != nil {
			return fmt.Errorf("collection: %s: %w", d.Path, err)
		}
		text = string(b)
	}
	return writeFile(path, func(w io.Writer) error {
		io.WriteString(w, "<!DOCTYPE html>\n<html><head>")
		if d.Title != "" {
			io.WriteString(w, "<title>"+html.EscapeString(d.Title)+"</title>")
		}
		io.WriteString(w, "</head><body><pre>\n")
		io.WriteString(w, html.EscapeString(text))
		_, err := io.WriteString(w, "</pre></body></html>\n")
		return err
	})
}

// writeFile creates path and fills it through fill.
func writeFile(path string, fill func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("collection: %w", err)
	}
	bw := bufio.NewWriter(f)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("collection: %w", cerr)
	}
	return err
}

// openText opens a text file, gunzipping one whose name ends in ".gz".
func openText(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("collection: %w", err)
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, nil
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("collection: %s: %w", path, err)
	}
	return gzipFile{zr, f}, nil
}

// gzipFile closes both the gzip stream and its file.
type gzipFile struct {
	*gzip.Reader
	f *os.File
}

func (g gzipFile) Close() error {
	return errors.Join(g.Reader.Close(), g.f.Close())
}
