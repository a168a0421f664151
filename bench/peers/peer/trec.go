package peer

import (
	"bufio"
	"os"
	"strconv"

	"github.com/gpusearch/gpusearch/eval"
)

// writeTREC writes one run in TREC format ("qid Q0 docno rank score tag"),
// the docno of a hit being its document's (Corpus.DocNos). A docno already
// written for the query is left out, as eval.WriteRun leaves it out.
func writeTREC(path string, qs []eval.Query, hits [][]Hit, docnos []string, tag string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for qi, q := range qs {
		seen := make(map[string]bool, len(hits[qi]))
		rank := 0
		for _, h := range hits[qi] {
			no := docnos[h.Doc]
			if seen[no] {
				continue
			}
			seen[no] = true
			rank++
			w.WriteString(q.ID + " Q0 " + no + " " + strconv.Itoa(rank) + " " +
				strconv.FormatFloat(h.Score, 'g', -1, 64) + " " + tag + "\n")
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
