package analytics

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// outputDocs is a tiny corpus with a word that needs JSON escaping.
var outputDocs = [][]string{{"b", "a", "b", "q\"x"}, {}, {"a", "b", "a"}}

func runTask(t *testing.T, c *Corpus, task Task) *Result {
	t.Helper()
	res, err := Run(context.Background(), c, task, Options{SeqLen: 2})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestWriteJSON(t *testing.T) {
	c := corpusOf(t, outputDocs)
	type postings map[string][][2]int
	tests := []struct {
		task Task
		into any
		want any
	}{
		{WordCount, &map[string]map[string]uint64{}, &map[string]map[string]uint64{"counts": plainWordCount(outputDocs)}},
		{Sort, &map[string][]map[string]any{}, &map[string][]map[string]any{"words": {
			{"word": "a", "count": 3.0}, {"word": "b", "count": 3.0}, {"word": "q\"x", "count": 1.0}}}},
		{InvertedIndex, &struct {
			Documents []string `json:"documents"`
			Postings  postings `json:"postings"`
		}{}, &struct {
			Documents []string `json:"documents"`
			Postings  postings `json:"postings"`
		}{c.URLs, postings{"a": {{0, 1}, {2, 2}}, "b": {{0, 2}, {2, 1}}, "q\"x": {{0, 1}}}}},
		{RankedInvertedIndex, &struct {
			Postings postings `json:"postings"`
		}{}, &struct {
			Postings postings `json:"postings"`
		}{postings{"a": {{2, 2}, {0, 1}}, "b": {{0, 2}, {2, 1}}, "q\"x": {{0, 1}}}}},
		{TermVector, &map[string][]struct {
			DocID int            `json:"docid"`
			URL   string         `json:"url"`
			Terms map[string]int `json:"terms"`
		}{}, &map[string][]struct {
			DocID int            `json:"docid"`
			URL   string         `json:"url"`
			Terms map[string]int `json:"terms"`
		}{"documents": {{0, c.URLs[0], map[string]int{"a": 1, "b": 2, "q\"x": 1}}, {1, c.URLs[1], map[string]int{}}, {2, c.URLs[2], map[string]int{"a": 2, "b": 1}}}}},
		{SeqCount, &struct {
			SeqLen    int `json:"seq_len"`
			Documents []struct {
				Counts map[string]int `json:"counts"`
			} `json:"documents"`
		}{}, &struct {
			SeqLen    int `json:"seq_len"`
			Documents []struct {
				Counts map[string]int `json:"counts"`
			} `json:"documents"`
		}{2, []struct {
			Counts map[string]int `json:"counts"`
		}{{map[string]int{"b a": 1, "a b": 1, "b q\"x": 1}}, {map[string]int{}}, {map[string]int{"a b": 1, "b a": 1}}}}},
	}
	for _, tt := range tests {
		t.Run(string(tt.task), func(t *testing.T) {
			var buf bytes.Buffer
			if err := runTask(t, c, tt.task).WriteJSON(&buf, c.Dict, c.URLs); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(buf.Bytes(), tt.into); err != nil {
				t.Fatalf("WriteJSON wrote invalid JSON %q: %v", buf.String(), err)
			}
			if !reflect.DeepEqual(tt.into, tt.want) {
				t.Errorf("WriteJSON = %s, want %+v", buf.String(), tt.want)
			}
		})
	}
}

func TestWriteText(t *testing.T) {
	c := corpusOf(t, outputDocs)
	u := c.URLs
	tests := []struct {
		task Task
		want string
	}{
		{WordCount, "3\ta\n3\tb\n1\tq\"x\n"},
		{Sort, "a\t3\nb\t3\nq\"x\t1\n"},
		{InvertedIndex, "a\t0:1 2:2\nb\t0:2 2:1\nq\"x\t0:1\n"},
		{RankedInvertedIndex, "a\t2:2 0:1\nb\t0:2 2:1\nq\"x\t0:1\n"},
		{TermVector, u[0] + "\ta:1 b:2 q\"x:1\n" + u[1] + "\t\n" + u[2] + "\ta:2 b:1\n"},
		{SeqCount, u[0] + "\ta b\t1\n" + u[0] + "\tb a\t1\n" + u[0] + "\tb q\"x\t1\n" + u[2] + "\ta b\t1\n" + u[2] + "\tb a\t1\n"},
	}
	for _, tt := range tests {
		t.Run(string(tt.task), func(t *testing.T) {
			var b strings.Builder
			if err := runTask(t, c, tt.task).WriteText(&b, c.Dict, c.URLs); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("WriteText = %q, want %q", b.String(), tt.want)
			}
		})
	}
}

func TestEntries(t *testing.T) {
	c := corpusOf(t, outputDocs)
	tests := []struct {
		task Task
		want int
	}{
		{WordCount, 3}, {Sort, 3}, {InvertedIndex, 5}, {RankedInvertedIndex, 5}, {TermVector, 5}, {SeqCount, 5},
	}
	for _, tt := range tests {
		if got := runTask(t, c, tt.task).Entries(); got != tt.want {
			t.Errorf("Run(%s).Entries() = %d, want %d", tt.task, got, tt.want)
		}
	}
}
