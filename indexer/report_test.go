package indexer_test

import (
	"fmt"
	"testing"

	"github.com/gpusearch/gpusearch/indexer"
)

func TestProblemString(t *testing.T) {
	tests := []struct {
		p    indexer.Problem
		want string
	}{
		{indexer.Problem{}, "0"},
		{indexer.Problem{Count: 1, First: []string{"a"}}, "1 (a)"},
		{indexer.Problem{Count: 5, First: []string{"a", "b", "c", "d", "e"}}, "5 (a, b, c, d, e)"},
		{indexer.Problem{Count: 7, First: []string{"a", "b", "c", "d", "e"}}, "7 (a, b, c, d, e and 2 more)"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.p, got, tt.want)
		}
	}
}

// TestReportCategories checks that the report counts every file it
// passes over, names the first few of each kind and says how many more,
// and counts hidden files and directories (skipped by design) as a kind
// of their own rather than leaving them out silently.
func TestReportCategories(t *testing.T) {
	root := t.TempDir()
	mkfile(t, root, "example.com/doc.txt", []byte("the one document"))
	for i := range 8 {
		mkfile(t, root, fmt.Sprintf("example.com/img%d.png", i), []byte("\x89PNG\r\n\x1a\n"))
	}
	mkfile(t, root, "example.com/.hidden.txt", []byte("hidden file"))
	mkfile(t, root, ".git/HEAD.txt", []byte("hidden directory"))
	mkfile(t, root, "example.com/.cache/a/b.txt", []byte("inside a hidden directory"))
	_, rep, _ := build(t, root, vcOpts)
	if rep.Documents != 1 {
		t.Errorf("Report.Documents = %d, want 1", rep.Documents)
	}
	if got, want := rep.Unsupported.String(), "8 (example.com/img0.png, example.com/img1.png, example.com/img2.png, example.com/img3.png, example.com/img4.png and 3 more)"; got != want {
		t.Errorf("Report.Unsupported = %q, want %q", got, want)
	}
	if rep.Hidden.Count != 3 || !hasName(rep.Hidden, ".git") || !hasName(rep.Hidden, ".hidden.txt") || !hasName(rep.Hidden, ".cache") {
		t.Errorf("Report.Hidden = %+v, want .git, .cache and .hidden.txt", rep.Hidden)
	}
	kinds := map[string]indexer.Problem{}
	for _, s := range rep.Skipped() {
		if s.What == "" {
			t.Errorf("Report.Skipped has a kind without a description: %+v", s)
		}
		kinds[s.What] = s.Problem
	}
	if len(kinds) != 6 {
		t.Errorf("Report.Skipped = %+v, want 6 kinds with different descriptions", rep.Skipped())
	}
	var hidden, unsupported bool
	for _, p := range kinds {
		hidden = hidden || p.Count == rep.Hidden.Count && hasName(p, ".git")
		unsupported = unsupported || p.Count == 8
	}
	if !hidden || !unsupported {
		t.Errorf("Report.Skipped = %+v, want the hidden and unsupported files among them", rep.Skipped())
	}
}
