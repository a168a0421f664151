package collection

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSMART(t *testing.T) {
	in := ".I 1\r\n.T\r\nA title\r\non two lines .\r\n.A\r\nauthor,a.\r\n.W\r\nthe abstract\r\n.I 002\n.T\nno abstract\n\n.I 0\n"
	got, err := parseSMART(strings.NewReader(in))
	if err != nil {
		t.Fatalf("parseSMART: %v", err)
	}
	want := []record{
		{id: "1", fields: map[byte]string{'T': "A title\non two lines .", 'A': "author,a.", 'W': "the abstract"}},
		{id: "002", fields: map[byte]string{'T': "no abstract"}},
		{id: "0", fields: map[byte]string{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseSMART(%q) = %v, want %v", in, got, want)
	}
}

// TestParseSMARTRepeatedMarker: Cranfield's document 240 has ".A" and
// ".B" lines inside its abstract; they stay text of the abstract.
func TestParseSMARTRepeatedMarker(t *testing.T) {
	in := ".I 240\n.T\nt\n.A\nauthor\n.B\nbib\n.W\nfirst\n.A\nsecond\n.B\nthird\n.W\nfourth\n.I 241\n.T\nu\n"
	got, err := parseSMART(strings.NewReader(in))
	if err != nil {
		t.Fatalf("parseSMART: %v", err)
	}
	want := []record{
		{id: "240", fields: map[byte]string{'T': "t", 'A': "author", 'B': "bib", 'W': "first\n.A\nsecond\n.B\nthird\n.W\nfourth"}},
		{id: "241", fields: map[byte]string{'T': "u"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseSMART(%q) = %v, want %v", in, got, want)
	}
}

func TestParseSMARTErrors(t *testing.T) {
	tests := []struct{ name, in string }{
		{"field before any record", ".T\ntitle\n"},
		{"text before any field", ".I 1\nstray text\n.T\nx\n"},
		{"record without id", ".I\n.T\nx\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := parseSMART(strings.NewReader(tt.in)); err == nil {
				t.Errorf("parseSMART(%q) = %v, want an error", tt.in, got)
			}
		})
	}
}

func TestTitleAndAbstract(t *testing.T) {
	tests := []struct {
		fields map[byte]string
		want   string
	}{
		{map[byte]string{'T': "t", 'W': "w", 'A': "a", 'B': "b"}, "t\n\nw\n"},
		{map[byte]string{'T': "t", 'X': "100 5 1"}, "t\n"},
		{map[byte]string{'W': "w"}, "w\n"},
	}
	for _, tt := range tests {
		if got := titleAndAbstract(record{fields: tt.fields}); got != tt.want {
			t.Errorf("titleAndAbstract(%v) = %q, want %q", tt.fields, got, tt.want)
		}
	}
}
