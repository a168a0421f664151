package analytics

import (
	"bufio"
	"cmp"
	"encoding/json"
	"io"
	"slices"
	"strconv"
)

// WriteJSON writes the result as one JSON document (the shapes are in the
// package documentation); dict and urls name the word ids and docids.
func (r *Result) WriteJSON(w io.Writer, dict, urls []string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	jw := &jsonWriter{w: bw}
	switch r.Task {
	case WordCount:
		jw.raw(`{"counts":{`)
		first := true
		for id, n := range r.Counts {
			if n == 0 {
				continue
			}
			jw.sep(&first)
			jw.str(dict[id])
			jw.raw(":")
			jw.uint(n)
		}
		jw.raw("}}\n")
	case Sort:
		jw.raw(`{"words":[`)
		first := true
		for id, n := range r.Counts {
			if n == 0 {
				continue
			}
			jw.sep(&first)
			jw.raw(`{"word":`)
			jw.str(dict[id])
			jw.raw(`,"count":`)
			jw.uint(n)
			jw.raw("}")
		}
		jw.raw("]}\n")
	case InvertedIndex, RankedInvertedIndex:
		jw.raw(`{"documents":[`)
		for d, u := range urls {
			if d > 0 {
				jw.raw(",")
			}
			jw.str(u)
		}
		jw.raw(`],"postings":{`)
		first := true
		for id := range r.Postings.Rows() {
			docs, tfs := r.Postings.Row(id)
			if len(docs) == 0 {
				continue
			}
			jw.sep(&first)
			jw.str(dict[id])
			jw.raw(":[")
			for i, d := range docs {
				if i > 0 {
					jw.raw(",")
				}
				jw.raw("[")
				jw.uint(uint64(d))
				jw.raw(",")
				jw.uint(uint64(tfs[i]))
				jw.raw("]")
			}
			jw.raw("]")
		}
		jw.raw("}}\n")
	case TermVector, SeqCount:
		if r.Task == SeqCount {
			jw.raw(`{"seq_len":`)
			jw.uint(uint64(r.SeqLen))
			jw.raw(`,"documents":[`)
		} else {
			jw.raw(`{"documents":[`)
		}
		for d := range r.Vectors.Rows() {
			if d > 0 {
				jw.raw(",")
			}
			keys, ns := r.Vectors.Row(d)
			jw.raw(`{"docid":`)
			jw.uint(uint64(d))
			jw.raw(`,"url":`)
			jw.str(urls[d])
			if r.Task == SeqCount {
				jw.raw(`,"counts":{`)
			} else {
				jw.raw(`,"terms":{`)
			}
			for i, k := range keys {
				if i > 0 {
					jw.raw(",")
				}
				jw.str(r.keyText(k, dict))
				jw.raw(":")
				jw.uint(uint64(ns[i]))
			}
			jw.raw("}}")
		}
		jw.raw("]}\n")
	}
	if jw.err != nil {
		return jw.err
	}
	return bw.Flush()
}

// keyText returns a Vectors column's text: a word, or a sequence's words
// joined by single spaces (words never contain white space).
func (r *Result) keyText(k uint32, dict []string) string {
	if r.Task != SeqCount {
		return dict[k]
	}
	l := r.SeqLen
	var b []byte
	for i, w := range r.Seqs[int(k)*l : int(k)*l+l] {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, dict[w]...)
	}
	return string(b)
}

// WriteText writes the result as tab-separated lines: "count<TAB>word"
// by count descending for wordcount; "word<TAB>count" in word order for
// sort; "word<TAB>docid:tf ..." for invindex and rankedinv;
// "url<TAB>word:tf ..." for termvector; "url<TAB>sequence<TAB>count" for
// seqcount.
func (r *Result) WriteText(w io.Writer, dict, urls []string) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var line []byte
	switch r.Task {
	case WordCount:
		order := make([]int, 0, len(r.Counts))
		for id, n := range r.Counts {
			if n > 0 {
				order = append(order, id)
			}
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(r.Counts[b], r.Counts[a]) })
		for _, id := range order {
			line = strconv.AppendUint(line[:0], r.Counts[id], 10)
			line = append(append(append(line, '\t'), dict[id]...), '\n')
			bw.Write(line)
		}
	case Sort:
		for id, n := range r.Counts {
			if n > 0 {
				line = append(append(line[:0], dict[id]...), '\t')
				line = append(strconv.AppendUint(line, n, 10), '\n')
				bw.Write(line)
			}
		}
	case InvertedIndex, RankedInvertedIndex:
		for id := range r.Postings.Rows() {
			docs, tfs := r.Postings.Row(id)
			if len(docs) == 0 {
				continue
			}
			line = append(append(line[:0], dict[id]...), '\t')
			for i, d := range docs {
				if i > 0 {
					line = append(line, ' ')
				}
				line = append(strconv.AppendUint(line, uint64(d), 10), ':')
				line = strconv.AppendUint(line, uint64(tfs[i]), 10)
			}
			bw.Write(append(line, '\n'))
		}
	case TermVector:
		for d := range r.Vectors.Rows() {
			keys, ns := r.Vectors.Row(d)
			line = append(append(line[:0], urls[d]...), '\t')
			for i, k := range keys {
				if i > 0 {
					line = append(line, ' ')
				}
				line = append(append(line, dict[k]...), ':')
				line = strconv.AppendUint(line, uint64(ns[i]), 10)
			}
			bw.Write(append(line, '\n'))
		}
	case SeqCount:
		for d := range r.Vectors.Rows() {
			keys, ns := r.Vectors.Row(d)
			for i, k := range keys {
				line = append(append(line[:0], urls[d]...), '\t')
				line = append(append(line, r.keyText(k, dict)...), '\t')
				line = append(strconv.AppendUint(line, uint64(ns[i]), 10), '\n')
				bw.Write(line)
			}
		}
	}
	return bw.Flush()
}

// jsonWriter writes JSON tokens and remembers the first error.
type jsonWriter struct {
	w   *bufio.Writer
	buf []byte
	err error
}

func (j *jsonWriter) raw(s string) {
	if j.err == nil {
		_, j.err = j.w.WriteString(s)
	}
}

func (j *jsonWriter) str(s string) {
	b, err := json.Marshal(s)
	if err != nil {
		j.err = err
		return
	}
	if j.err == nil {
		_, j.err = j.w.Write(b)
	}
}

func (j *jsonWriter) uint(n uint64) {
	j.buf = strconv.AppendUint(j.buf[:0], n, 10)
	if j.err == nil {
		_, j.err = j.w.Write(j.buf)
	}
}

// sep writes a comma before every element but the first.
func (j *jsonWriter) sep(first *bool) {
	if !*first {
		j.raw(",")
	}
	*first = false
}
