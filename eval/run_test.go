package eval

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/query"
)

func TestWriteRun(t *testing.T) {
	urls := []string{"crawl/1400.txt", "http://host/a/b.html", "b.txt", "c d.txt"}
	docno := func(id uint32) string {
		if id == uint32(len(urls)) {
			return "not escaped" // a docno function other than DocNo
		}
		return DocNo(urls[id])
	}
	tests := []struct {
		name    string
		hits    []query.Hit
		want    string
		wantErr bool
	}{
		{
			name: "ranks from one, exact float32 scores",
			hits: []query.Hit{{DocID: 0, Score: 12.345678}, {DocID: 1, Score: 0.1}},
			want: "7 Q0 1400 1 12.345678 tag\n7 Q0 b 2 0.1 tag\n",
		},
		{
			name: "later hit with the same docno skipped",
			hits: []query.Hit{{DocID: 1, Score: 3}, {DocID: 2, Score: 2}, {DocID: 0, Score: 1}},
			want: "7 Q0 b 1 3 tag\n7 Q0 1400 2 1 tag\n",
		},
		{name: "no hits", hits: nil, want: ""},
		{name: "file name with a space", hits: []query.Hit{{DocID: 3, Score: 1}}, want: "7 Q0 c%20d 1 1 tag\n"},
		{name: "docno with a space", hits: []query.Hit{{DocID: 4, Score: 1}}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := WriteRun(&buf, "7", tt.hits, docno, "tag")
			if tt.wantErr {
				if err == nil {
					t.Errorf("WriteRun(%v) = nil error, want one", tt.hits)
				}
				return
			}
			if err != nil || buf.String() != tt.want {
				t.Errorf("WriteRun(%v) = %q, %v, want %q", tt.hits, buf.String(), err, tt.want)
			}
		})
	}
	for _, bad := range []struct{ qid, tag string }{{"", "t"}, {"a b", "t"}, {"1", ""}, {"1", "my tag"}} {
		if err := WriteRun(&bytes.Buffer{}, bad.qid, nil, docno, bad.tag); err == nil {
			t.Errorf("WriteRun(qid %q, tag %q) = nil error, want one", bad.qid, bad.tag)
		}
	}
}

// TestRunRoundTrip writes engine hits, reads them back, writes the run
// again and reads it once more: every float32 score survives exactly, and
// a read run survives Write and ReadRun unchanged.
func TestRunRoundTrip(t *testing.T) {
	scores := []float32{1e-7, 0.1, 1.0 / 3, 12.345678, 3.4028235e38, 0}
	var hits []query.Hit
	for i, s := range scores {
		hits = append(hits, query.Hit{DocID: uint32(i), Score: s})
	}
	docno := func(id uint32) string { return "d" + strconv.Itoa(int(id)) }
	var buf bytes.Buffer
	for _, qid := range []string{"10", "2", "abc"} {
		if err := WriteRun(&buf, qid, hits, docno, "run1"); err != nil {
			t.Fatalf("WriteRun: %v", err)
		}
	}
	run, err := ReadRun(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("ReadRun: %v", err)
	}
	for _, qid := range []string{"10", "2", "abc"} {
		got := run[qid]
		if len(got) != len(hits) {
			t.Fatalf("ReadRun: query %s has %d results, want %d", qid, len(got), len(hits))
		}
		for i, r := range got {
			// The shortest float32 form reads back as the float64 nearest
			// that decimal, which converts back to the same float32.
			if r.DocNo != docno(uint32(i)) || r.Rank != i+1 || float32(r.Score) != scores[i] {
				t.Errorf("ReadRun: query %s result %d = %+v, want docno %s rank %d score %v",
					qid, i, r, docno(uint32(i)), i+1, scores[i])
			}
		}
	}
	var again bytes.Buffer
	if err := run.Write(&again, "run1"); err != nil {
		t.Fatalf("Run.Write: %v", err)
	}
	written := again.String()
	run2, err := ReadRun(&again)
	if err != nil {
		t.Fatalf("ReadRun of Run.Write output: %v", err)
	}
	if !reflect.DeepEqual(run, run2) {
		t.Errorf("ReadRun(Run.Write(run)) = %v, want %v", run2, run)
	}
	// Run.Write orders queries numerically, then the others.
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(written), "\n") {
		if q := strings.Fields(line)[0]; len(order) == 0 || order[len(order)-1] != q {
			order = append(order, q)
		}
	}
	if !reflect.DeepEqual(order, []string{"2", "10", "abc"}) {
		t.Errorf("Run.Write query order = %v, want [2 10 abc]", order)
	}
}

func TestReadRunErrors(t *testing.T) {
	tests := []struct{ name, in string }{
		{"five fields", "1 Q0 d 1 2.5\n"},
		{"seven fields", "1 Q0 d 1 2.5 tag extra\n"},
		{"rank not a number", "1 Q0 d one 2.5 tag\n"},
		{"score not a number", "1 Q0 d 1 high tag\n"},
		{"score NaN", "1 Q0 d 1 NaN tag\n"},
		{"duplicate document", "1 Q0 d 1 2 tag\n1 Q0 d 2 1 tag\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if run, err := ReadRun(strings.NewReader(tt.in)); err == nil {
				t.Errorf("ReadRun(%q) = %v, want an error", tt.in, run)
			}
		})
	}
	run, err := ReadRun(strings.NewReader("\n1\tQ0  d 1 2 t\r\n\n2 Q0 d 1 2 t\n"))
	if err != nil || len(run["1"]) != 1 || len(run["2"]) != 1 {
		t.Errorf("ReadRun with blank lines, tabs and CRLF = %v, %v, want one result in queries 1 and 2", run, err)
	}
}

func TestDocNo(t *testing.T) {
	tests := []struct{ url, want string }{
		{"crawl/1400.txt", "1400"},
		{"1400.txt", "1400"},
		{"rfc2616.txt", "rfc2616"},
		{"http://host/a/b.html", "b"},
		{"http://host/a/b.html?x=1.y#frag", "b"},
		{"http://host/a/", "a"},
		{"a/archive.tar.gz", "archive.tar"},
		{"a/README", "README"},
		{"a/.profile", ".profile"},
		{"odd?name.txt", "odd?name"},
		// A docno is one field of a white-space separated line: white
		// space, other unprintable characters, invalid UTF-8 and the
		// escape character itself are percent-encoded, so that every
		// name has a docno and distinct names distinct docnos.
		{"http://host/my page.html", "my%20page"},
		{"crawl/tab\there\r\n.txt", "tab%09here%0D%0A"},
		{"crawl/my%20page.txt", "my%2520page"},
		{"crawl/100%.txt", "100%25"},
		{"crawl/nbsp\u00a0x.txt", "nbsp%C2%A0x"},
		{"crawl/rtl\u202ex.txt", "rtl%E2%80%AEx"},
		{"crawl/bad\xffutf8.txt", "bad%FFutf8"},
		{"crawl/naïve.txt", "naïve"},
	}
	for _, tt := range tests {
		if got := DocNo(tt.url); got != tt.want {
			t.Errorf("DocNo(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestRunQueries(t *testing.T) {
	qs := []Query{{ID: "1", Text: "alpha"}, {ID: "2", Text: "beta"}, {ID: "3", Text: "fail"}}
	search := func(_ context.Context, text string) ([]query.Hit, error) {
		if text == "fail" {
			return nil, errors.New("boom")
		}
		return []query.Hit{{DocID: uint32(len(text)), Score: 2}, {DocID: 1, Score: 1}}, nil
	}
	docno := func(id uint32) string { return "d" + strconv.Itoa(int(id)) }
	var buf bytes.Buffer
	if err := RunQueries(context.Background(), &buf, qs[:2], search, docno, "t"); err != nil {
		t.Fatalf("RunQueries: %v", err)
	}
	want := "1 Q0 d5 1 2 t\n1 Q0 d1 2 1 t\n2 Q0 d4 1 2 t\n2 Q0 d1 2 1 t\n"
	if buf.String() != want {
		t.Errorf("RunQueries = %q, want %q", buf.String(), want)
	}
	err := RunQueries(context.Background(), &bytes.Buffer{}, qs, search, docno, "t")
	if err == nil || !strings.Contains(err.Error(), "query 3") {
		t.Errorf("RunQueries with a failing query: error %v, want one naming query 3", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := RunQueries(ctx, &bytes.Buffer{}, qs, search, docno, "t"); !errors.Is(err, context.Canceled) {
		t.Errorf("RunQueries with a cancelled context: error %v, want context.Canceled", err)
	}
}
