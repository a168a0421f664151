package eval

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestReadQrels(t *testing.T) {
	in := "1 0 184 4\n1 0 29 3\r\n\n10 0 5 0\n2\t0\tx -1\n"
	got, err := ReadQrels(strings.NewReader(in))
	if err != nil {
		t.Fatalf("ReadQrels: %v", err)
	}
	want := Qrels{"1": {"184": 4, "29": 3}, "10": {"5": 0}, "2": {"x": -1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadQrels(%q) = %v, want %v", in, got, want)
	}
	for qid, n := range map[string]int{"1": 2, "10": 0, "2": 0, "9": 0} {
		if r := got.NumRelevant(qid); r != n {
			t.Errorf("NumRelevant(%s) = %d, want %d", qid, r, n)
		}
	}
	var buf bytes.Buffer
	if err := got.Write(&buf); err != nil {
		t.Fatalf("Qrels.Write: %v", err)
	}
	wantText := "1 0 29 3\n1 0 184 4\n2 0 x -1\n10 0 5 0\n"
	if buf.String() != wantText {
		t.Errorf("Qrels.Write = %q, want %q", buf.String(), wantText)
	}
	back, err := ReadQrels(&buf)
	if err != nil || !reflect.DeepEqual(back, got) {
		t.Errorf("ReadQrels(Qrels.Write(q)) = %v, %v, want %v", back, err, got)
	}
}

func TestReadQrelsErrors(t *testing.T) {
	tests := []struct{ name, in string }{
		{"three fields", "1 184 4\n"},
		{"relevance not an integer", "1 0 184 high\n"},
		{"relevance a fraction", "1 0 184 0.5\n"},
		{"judged twice", "1 0 184 4\n1 0 184 2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if q, err := ReadQrels(strings.NewReader(tt.in)); err == nil {
				t.Errorf("ReadQrels(%q) = %v, want an error", tt.in, q)
			}
		})
	}
}

func TestCompareIDs(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"2", "10", -1},
		{"10", "2", 1},
		{"010", "10", -1}, // equal values fall back to bytes
		{"9", "a", -1},
		{"a", "9", 1},
		{"a", "b", -1},
		{"b", "b", 0},
	}
	for _, tt := range tests {
		if got := CompareIDs(tt.a, tt.b); got != tt.want {
			t.Errorf("CompareIDs(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
