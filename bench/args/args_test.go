package args

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpusearch/gpusearch/eval"
	"github.com/gpusearch/gpusearch/query"
	"github.com/gpusearch/gpusearch/query/schedule"
)

func TestList(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{" a, ,b ,", []string{"a", "b"}},
	} {
		if got := List(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("List(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestModes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []query.Mode
		ok   bool
	}{
		{"and,or", []query.Mode{query.And, query.Or}, true},
		{"andor", []query.Mode{query.AndOr}, true},
		{"", nil, false},
		{"and,xor", nil, false},
	} {
		got, err := Modes(tt.in)
		if (err == nil) != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("Modes(%q) = %v, %v; want %v (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestPolicies(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []schedule.Policy
		ok   bool
	}{
		{"cpu,hybrid", []schedule.Policy{schedule.PolicyCPU, schedule.PolicyHybrid}, true},
		{"", nil, true},
		{"cpu,tpu", nil, false},
	} {
		got, err := Policies(tt.in)
		if (err == nil) != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("Policies(%q) = %v, %v; want %v (ok %v)", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestTexts(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"plain", "cat dog\nfish\n", []string{"cat dog", "fish"}},
		{"ids", "7\tcat dog\n", []string{"cat dog"}},
		{"empty", "", nil},
	} {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Texts(path)
		if (err == nil) != (tt.want != nil) || !slices.Equal(got, tt.want) {
			t.Errorf("Texts(%s) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestInEveryMode(t *testing.T) {
	qs, err := InEveryMode([]eval.Query{{Text: "cats"}, {Text: "dogs"}}, []query.Mode{query.And, query.Or}, 5)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range qs {
		got = append(got, fmt.Sprintln(q.Terms, q.Mode, q.K))
	}
	want := []string{"[cat] and 5\n", "[cat] or 5\n", "[dog] and 5\n", "[dog] or 5\n"}
	if !slices.Equal(got, want) {
		t.Errorf("InEveryMode = %q, want %q", got, want)
	}
}
