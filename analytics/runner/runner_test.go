package runner

import (
	"context"
	"testing"

	"github.com/gpusearch/gpusearch/analytics"
)

// TestForms: on the CPU, the compressed corpus and both baselines count
// the same words, and report the form they ran on; Text needs Plain.
func TestForms(t *testing.T) {
	ctx := context.Background()
	c, _, err := analytics.Compress(ctx, "../../examples/crawl", analytics.CompressOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := c.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	want := -1
	for _, tt := range []struct {
		o    Options
		form string
	}{
		{Options{Task: analytics.WordCount}, "compressed"},
		{Options{Task: analytics.WordCount, Plain: true}, "plain"},
		{Options{Task: analytics.WordCount, Plain: true, Text: true}, "text"},
	} {
		r, err := Open(dir, tt.o)
		if err != nil {
			t.Fatalf("Open(%+v): %v", tt.o, err)
		}
		res, err := r.Run(ctx)
		r.Close()
		if err != nil {
			t.Fatalf("Run(%+v): %v", tt.o, err)
		}
		if want < 0 {
			want = res.Entries()
		}
		if r.Setup.Form != tt.form || res.Entries() != want || want == 0 {
			t.Errorf("%+v: form %s, %d entries; want %s and %d", tt.o, r.Setup.Form, res.Entries(), tt.form, want)
		}
	}
	if _, err := Open(dir, Options{Task: analytics.WordCount, Text: true}); err == nil {
		t.Error("Open with Text but not Plain: no error")
	}
}
