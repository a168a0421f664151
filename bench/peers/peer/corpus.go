package peer

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpusearch/gpusearch/eval"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/indexer/extract"
)

// Corpus is a crawl's extracted text, written once for every engine.
type Corpus struct {
	TextDir    string        // one plain-text file a document, Names[i], for gpusearch
	TSV        string        // "name<TAB>text" a line, for the peers
	TitlesFile string        // document i's title on line i: extract.Title of its text, as gpusearch's store titles a text file
	Names      []string      // document i's file name in TextDir, "%08d.txt"
	DocNos     []string      // document i's docno: eval.DocNo of its crawl URL
	Bytes      int64         // bytes of extracted text
	Extract    time.Duration // time to walk, read, extract and write it all
}

// Len returns the number of documents.
func (c *Corpus) Len() int { return len(c.Names) }

// WriteCorpus extracts the text of every document of crawlDir, in docid order,
// into dir/text and dir/corpus.tsv, replacing what they held. A document that
// cannot be read is left out, as indexer.Build leaves it out.
func WriteCorpus(crawlDir, dir string) (*Corpus, error) {
	start := time.Now()
	docs, _, err := indexer.Documents(context.Background(), crawlDir, indexer.Options{})
	if err != nil {
		return nil, err
	}
	c := &Corpus{TextDir: filepath.Join(dir, "text"), TSV: filepath.Join(dir, "corpus.tsv"), TitlesFile: filepath.Join(dir, "corpus.titles")}
	if err := os.RemoveAll(c.TextDir); err != nil { // a reused work directory's old corpus
		return nil, err
	}
	if err := os.MkdirAll(c.TextDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(c.TSV)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tf, err := os.Create(c.TitlesFile)
	if err != nil {
		return nil, err
	}
	defer tf.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	tw := bufio.NewWriter(tf)
	for _, d := range docs {
		text, _, _, err := d.Text(0)
		if err != nil {
			continue
		}
		name := fmt.Sprintf("%08d.txt", len(c.Names))
		if err := os.WriteFile(filepath.Join(c.TextDir, name), text, 0o644); err != nil {
			return nil, err
		}
		tw.WriteString(extract.Title(text))
		tw.WriteByte('\n')
		w.WriteString(name)
		w.WriteByte('\t')
		w.Write(oneLine(text))
		w.WriteByte('\n')
		c.Names = append(c.Names, name)
		c.DocNos = append(c.DocNos, eval.DocNo(d.URL))
		c.Bytes += int64(len(text))
	}
	for _, err := range []error{w.Flush(), tw.Flush(), f.Close(), tf.Close()} {
		if err != nil {
			return nil, err
		}
	}
	if len(c.Names) == 0 {
		return nil, fmt.Errorf("peer: crawl %s holds no document", crawlDir)
	}
	c.Extract = time.Since(start)
	return c, nil
}

// oneLine replaces tabs, carriage returns and newlines with spaces, in place.
func oneLine(b []byte) []byte {
	for i, c := range b {
		if c == '\t' || c == '\n' || c == '\r' {
			b[i] = ' '
		}
	}
	return b
}

// ReadQueries reads a queries file (eval.ReadQueries: "qid<TAB>text" or
// "text" lines), keeping the first limit queries when limit > 0.
func ReadQueries(path string, limit int) ([]eval.Query, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	qs, err := eval.ReadQueries(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if limit > 0 && len(qs) > limit {
		qs = qs[:limit]
	}
	if len(qs) == 0 {
		return nil, fmt.Errorf("peer: %s holds no query", path)
	}
	return qs, nil
}

// queryTexts returns the texts of qs on one line each.
func queryTexts(qs []eval.Query) []string {
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = string(oneLine([]byte(q.Text)))
	}
	return texts
}

// writeLines writes one string a line.
func writeLines(path string, lines []string) error {
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}
