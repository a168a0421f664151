package collection

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gpusearch/gpusearch/eval"
)

// cranfieldGain maps Cleverdon's relevance codes to graded gains (see the
// package doc).
var cranfieldGain = map[int]int{1: 4, 2: 3, 3: 2, 4: 1, 5: 0, -1: 0}

// ReadCranfield reads the Cranfield collection from dir (cran.all.1400,
// cran.qry, cranqrel).
func ReadCranfield(dir string) (*Collection, error) {
	docs, err := readSMART(filepath.Join(dir, "cran.all.1400"))
	if err != nil {
		return nil, err
	}
	qrecs, err := readSMART(filepath.Join(dir, "cran.qry"))
	if err != nil {
		return nil, err
	}
	c := &Collection{Qrels: eval.Qrels{}}
	for _, r := range docs {
		id, err := number(r.id)
		if err != nil {
			return nil, fmt.Errorf("collection: cran.all.1400: %w", err)
		}
		c.Docs = append(c.Docs, Doc{ID: id, Text: titleAndAbstract(r), Title: collapse(r.fields['T'])})
	}
	for i, r := range qrecs {
		// The qrels number queries by position, not by .I.
		c.Queries = append(c.Queries, eval.Query{ID: strconv.Itoa(i + 1), Text: r.fields['W']})
	}
	if err := readCranQrels(filepath.Join(dir, "cranqrel"), c.Qrels); err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

// readCranQrels reads "qid docno code" lines into q as graded gains.
func readCranQrels(path string, q eval.Qrels) error {
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
		if len(fl) != 3 {
			return fmt.Errorf("collection: %s line %d: %d fields, want 3 (query document code)", path, n, len(fl))
		}
		qid, err1 := number(fl[0])
		doc, err2 := number(fl[1])
		code, err3 := strconv.Atoi(fl[2])
		gain, known := cranfieldGain[code]
		if err1 != nil || err2 != nil || err3 != nil || !known {
			return fmt.Errorf("collection: %s line %d: want query, document and a code in 1..5 or -1, got %q", path, n, sc.Text())
		}
		if _, dup := q[qid][doc]; dup {
			return fmt.Errorf("collection: %s line %d: query %s judges document %s twice", path, n, qid, doc)
		}
		q.Add(qid, doc, gain)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("collection: %s: %w", path, err)
	}
	return nil
}

// number normalises a decimal id ("001" -> "1").
func number(s string) (string, error) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return "", fmt.Errorf("id %q is not a number", s)
	}
	return strconv.FormatUint(n, 10), nil
}
