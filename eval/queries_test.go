package eval

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestQueries(t *testing.T) {
	in := "1\tparse json\n\nhttp server timeout\n q7 \t  padded text\r\n"
	got, err := ReadQueries(strings.NewReader(in))
	if err != nil {
		t.Fatalf("ReadQueries: %v", err)
	}
	want := []Query{{"1", "parse json"}, {"3", "http server timeout"}, {"q7", "  padded text"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadQueries(%q) = %q, want %q", in, got, want)
	}
	for _, bad := range []string{"1\ta\n1\tb\n", "a b\tc\n", "\tno id\n", "x\n1\ty\n"} {
		if qs, err := ReadQueries(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadQueries(%q) = %q, want an error", bad, qs)
		}
	}
	var buf bytes.Buffer
	if err := WriteQueries(&buf, []Query{{"5", "what are\nthe\tproblems  .\n"}, {"6", "x"}}); err != nil {
		t.Fatalf("WriteQueries: %v", err)
	}
	if w := "5\twhat are the problems .\n6\tx\n"; buf.String() != w {
		t.Errorf("WriteQueries = %q, want %q", buf.String(), w)
	}
}
