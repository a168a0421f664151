package collection

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpusearch/gpusearch/eval"
)

// ReadCACM reads the CACM collection from dir (cacm.all, query.text,
// qrels.text).
func ReadCACM(dir string) (*Collection, error) {
	docs, err := readSMART(filepath.Join(dir, "cacm.all"))
	if err != nil {
		return nil, err
	}
	qrecs, err := readSMART(filepath.Join(dir, "query.text"))
	if err != nil {
		return nil, err
	}
	c := &Collection{Qrels: eval.Qrels{}}
	for _, r := range docs {
		id, err := number(r.id)
		if err != nil {
			return nil, fmt.Errorf("collection: cacm.all: %w", err)
		}
		c.Docs = append(c.Docs, Doc{ID: id, Text: titleAndAbstract(r), Title: collapse(r.fields['T'])})
	}
	for _, r := range qrecs {
		text, ok := r.fields['W']
		if !ok {
			continue
		}
		id, err := number(r.id)
		if err != nil {
			return nil, fmt.Errorf("collection: query.text: %w", err)
		}
		c.Queries = append(c.Queries, eval.Query{ID: id, Text: text})
	}
	if err := readCACMQrels(filepath.Join(dir, "qrels.text"), c.Qrels); err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

// readCACMQrels reads "qid docno 0 0" lines into q, each relevant.
func readCACMQrels(path string, q eval.Qrels) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("collection: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fl := strings.Fields(sc.Text())
		if len(fl) == 0 {
			continue
		}
		if len(fl) != 4 {
			return fmt.Errorf("collection: %s line %d: %d fields, want 4 (query document 0 0)", path, n, len(fl))
		}
		qid, err1 := number(fl[0])
		doc, err2 := number(fl[1])
		if err1 != nil || err2 != nil {
			return fmt.Errorf("collection: %s line %d: want numeric query and document ids, got %q", path, n, sc.Text())
		}
		if _, dup := q[qid][doc]; dup {
			return fmt.Errorf("collection: %s line %d: query %s judges document %s twice", path, n, qid, doc)
		}
		q.Add(qid, doc, 1)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("collection: %s: %w", path, err)
	}
	return nil
}
