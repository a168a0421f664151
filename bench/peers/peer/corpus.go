package peer

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/eval"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/indexer/extract"
)

// Corpus is a crawl's extracted text, written once for every engine.
//
// With passages (Passages > 0), every engine's document is a passage:
// TextDir still holds the whole documents, which gpusearch cuts itself
// (indexer.Options.Passages), and the TSV holds the same passages' text
// for the peers that read it (not bleve, which reads TextDir).
type Corpus struct {
	TextDir    string        // one plain-text file a document, for gpusearch
	TSV        string        // "name<TAB>text" a line, for the peers
	TitlesFile string        // document i's title on line i: extract.Title of its text, as gpusearch's store titles a text file
	Names      []string      // document i's name: its file in TextDir, "%08d.txt", with "#p<j>" for passage j (from 1)
	DocNos     []string      // document i's docno: eval.DocNo of its crawl URL, with "#p<j>" for a passage
	Passages   int           // passage size in terms (0: whole documents)
	Bytes      int64         // bytes of extracted text
	Extract    time.Duration // time to walk, read, extract and write it all
}

// Len returns the number of documents.
func (c *Corpus) Len() int { return len(c.Names) }

// WriteCorpus extracts the text of every document of crawlDir, in docid order,
// into dir/text and dir/corpus.tsv, replacing what they held. A document that
// cannot be read is left out, as indexer.Build leaves it out. With passages
// > 0 the TSV's lines are passages of about that many terms, cut as
// indexer.Options.Passages cuts them (SplitPassages).
func WriteCorpus(crawlDir, dir string, passages int) (*Corpus, error) {
	if passages < 0 {
		return nil, fmt.Errorf("peer: passage size %d is negative", passages)
	}
	start := time.Now()
	docs, _, err := indexer.Documents(context.Background(), crawlDir, indexer.Options{})
	if err != nil {
		return nil, err
	}
	c := &Corpus{TextDir: filepath.Join(dir, "text"), TSV: filepath.Join(dir, "corpus.tsv"), TitlesFile: filepath.Join(dir, "corpus.titles"), Passages: passages}
	a := analysis.New()
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
	files := 0
	for _, d := range docs {
		text, _, _, err := d.Text(0)
		if err != nil {
			continue
		}
		name := fmt.Sprintf("%08d.txt", files)
		files++
		if err := os.WriteFile(filepath.Join(c.TextDir, name), text, 0o644); err != nil {
			return nil, err
		}
		c.Bytes += int64(len(text))
		docNo := eval.DocNo(d.URL)
		if passages == 0 {
			c.add(w, tw, name, docNo, text)
			continue
		}
		for j, p := range SplitPassages(a, text, passages) {
			suffix := "#p" + strconv.Itoa(j+1)
			c.add(w, tw, name+suffix, docNo+suffix, p)
		}
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

// add appends a document to c and its lines to the TSV and titles writers.
func (c *Corpus) add(w, tw *bufio.Writer, name, docNo string, text []byte) {
	tw.WriteString(extract.Title(text))
	tw.WriteByte('\n')
	w.WriteString(name)
	w.WriteByte('\t')
	w.Write(oneLine(text))
	w.WriteByte('\n')
	c.Names = append(c.Names, name)
	c.DocNos = append(c.DocNos, docNo)
}

// SplitPassages cuts text as indexer.Options.Passages does: its L terms
// (a's analysis) into k = max(1, round(L/size)) consecutive passages of
// L/k terms each, give or take one. A passage is the text from its first
// term's first byte to its last term's last byte; with k = 1 it is the
// whole text. The passages are slices of text.
func SplitPassages(a *analysis.Analyzer, text []byte, size int) [][]byte {
	type span struct{ start, end int }
	var spans []span
	a.AnalyzeOffsets(text, func(_ string, start, end int) { spans = append(spans, span{start, end}) })
	k := max(1, int(math.Round(float64(len(spans))/float64(size))))
	if k == 1 {
		return [][]byte{text}
	}
	out := make([][]byte, k)
	for i := range out {
		lo, hi := i*len(spans)/k, (i+1)*len(spans)/k
		out[i] = text[spans[lo].start:spans[hi-1].end]
	}
	return out
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
