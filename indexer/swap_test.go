package indexer_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
)

// swap is one way a crawl file can change between the walk and the read:
// change turns the file at path into something else (outside is a
// directory outside the crawl); the file must then be left out, reported
// under Changed (or Unreadable when changed is false) with a reason that
// contains reason.
type swap struct {
	name    string
	change  func(t *testing.T, path, outside string)
	changed bool
	reason  string
}

var swaps = []swap{
	{"named pipe", func(t *testing.T, p, _ string) {
		remove(t, p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}, true, "named pipe"},
	{"link to a named pipe", func(t *testing.T, p, _ string) {
		fifo := filepath.Join(filepath.Dir(p), "pipe")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		remove(t, p)
		symlink(t, fifo, p)
	}, true, "symbolic link"},
	{"link to a device", func(t *testing.T, p, _ string) {
		remove(t, p)
		symlink(t, "/dev/zero", p)
	}, true, "symbolic link"},
	{"link outside the crawl", func(t *testing.T, p, outside string) {
		remove(t, p)
		symlink(t, mkfile(t, outside, "secret.txt", []byte("outside secret")), p)
	}, true, "symbolic link"},
	{"directory", func(t *testing.T, p, _ string) {
		remove(t, p)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}, true, "directory"},
	{"replaced by another file", func(t *testing.T, p, _ string) {
		next := mkfile(t, filepath.Dir(p), "next.tmp", []byte("outside secret"))
		if err := os.Rename(next, p); err != nil {
			t.Fatal(err)
		}
	}, true, "replaced"},
	{"its directory replaced by a link outside", func(t *testing.T, p, outside string) {
		dir := filepath.Dir(p)
		mkfile(t, outside, "dir/"+filepath.Base(p), []byte("outside secret"))
		if err := os.Rename(dir, filepath.Join(filepath.Dir(dir), ".moved")); err != nil {
			t.Fatal(err)
		}
		symlink(t, filepath.Join(outside, "dir"), dir)
	}, true, "replaced"},
	{"removed", func(t *testing.T, p, _ string) { remove(t, p) }, false, "no such file"},
}

func remove(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

// within runs f and fails the test if it does not return within d: a
// file opened for reading must never block the indexer.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// swapCrawl writes a crawl of two documents and the one to be swapped,
// example.com/sub/swapped.txt, and returns its root and that file's path.
func swapCrawl(t *testing.T) (root, target string) {
	root = t.TempDir()
	mkfile(t, root, "example.com/a.txt", []byte("alpha words"))
	mkfile(t, root, "example.com/b.txt", []byte("beta words"))
	return root, mkfile(t, root, "example.com/sub/swapped.txt", []byte("original words"))
}

// TestFileSwappedAfterWalk changes a crawl file between Build's walk and
// its parse: Build must neither hang (a named pipe blocks a plain open
// forever) nor read anything but the file it walked, and must report the
// file with the reason.
func TestFileSwappedAfterWalk(t *testing.T) {
	for _, sw := range swaps {
		t.Run(sw.name, func(t *testing.T) {
			root, target := swapCrawl(t)
			outside := t.TempDir()
			defer indexer.SetWalkedHook(func() { sw.change(t, target, outside) })()
			out := filepath.Join(t.TempDir(), "idx")
			var rep indexer.Report
			var err error
			within(t, 10*time.Second, "Build", func() {
				rep, err = indexer.Build(context.Background(), root, out, vcOpts)
			})
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			ix, err := index.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			want := map[string]string{"http://example.com/a.txt": "alpha words", "http://example.com/b.txt": "beta words"}
			compare(t, ix, invert([]string{"http://example.com/a.txt", "http://example.com/b.txt"}, want))
			a := analysis.New()
			for _, w := range []string{"secret", "original"} {
				if _, ok := ix.Lookup(a.Terms(w)[0]); ok {
					t.Errorf("term %q of the swapped file is indexed", w)
				}
			}
			p, other := rep.Changed, rep.Unreadable
			if !sw.changed {
				p, other = other, p
			}
			if p.Count != 1 || other.Count != 0 || !hasName(p, "swapped.txt") || !hasName(p, sw.reason) {
				t.Errorf("Report.Changed = %+v, Unreadable = %+v; want swapped.txt under one, with %q", rep.Changed, rep.Unreadable, sw.reason)
			}
		})
	}
}

// TestDocumentTextSwapped is TestFileSwappedAfterWalk for Documents and
// Document.Text, the walk and read that compress uses.
func TestDocumentTextSwapped(t *testing.T) {
	for _, sw := range swaps {
		t.Run(sw.name, func(t *testing.T) {
			root, target := swapCrawl(t)
			docs, _, err := indexer.Documents(context.Background(), root, indexer.Options{})
			if err != nil || len(docs) != 3 {
				t.Fatalf("Documents = %d documents, %v; want 3", len(docs), err)
			}
			sw.change(t, target, t.TempDir())
			for _, d := range docs {
				var text []byte
				within(t, 5*time.Second, "Text", func() { text, _, _, err = d.Text(0) })
				if !strings.HasSuffix(d.URL, "swapped.txt") {
					if err != nil {
						t.Errorf("Text of %s: %v", d.URL, err)
					}
					continue
				}
				if err == nil || errors.Is(err, indexer.ErrChanged) != sw.changed || !strings.Contains(err.Error(), sw.reason) {
					t.Errorf("Text of the swapped file = %.40q, %v; want an error with %q (wrapping ErrChanged: %v)", text, err, sw.reason, sw.changed)
				}
			}
		})
	}
}

// TestBuildCancelledAfterWalk cancels a build between the walk and the
// parse: Build returns the context's error at once and leaves no
// goroutine behind.
func TestBuildCancelledAfterWalk(t *testing.T) {
	c := genCorpus(5, 300)
	crawl := t.TempDir()
	c.write(t, crawl)
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer indexer.SetWalkedHook(cancel)()
	var err error
	start := time.Now()
	within(t, 5*time.Second, "Build", func() {
		_, err = indexer.Build(ctx, crawl, filepath.Join(t.TempDir(), "idx"), vcOpts)
	})
	if !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("Build cancelled after the walk = %v after %v, want context.Canceled within a second", err, time.Since(start))
	}
	if n := waitGoroutines(before); n > before {
		t.Errorf("%d goroutines after a cancelled Build, %d before", n, before)
	}
}

// TestDocumentsCancelled walks with a cancelled context.
func TestDocumentsCancelled(t *testing.T) {
	root, _ := swapCrawl(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := indexer.Documents(ctx, root, indexer.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Documents with a cancelled context = %v, want context.Canceled", err)
	}
}

// waitGoroutines waits up to a second for the goroutines to be no more
// than n and returns their count.
func waitGoroutines(n int) int {
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return runtime.NumGoroutine()
}
