package indexer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/indexer/extract"
)

func TestURLOf(t *testing.T) {
	tests := []struct {
		rel, want string
	}{
		{"example.com/a/b.html", "http://example.com/a/b.html"},
		{"EXAMPLE.COM/x.html", "http://EXAMPLE.COM/x.html"},
		{"www.test-site.org:8080/docs/x.txt", "http://www.test-site.org:8080/docs/x.txt"},
		{"127.0.0.1/x.html", "http://127.0.0.1/x.html"},
		{"localhost/x.html", "http://localhost/x.html"},
		{"localhost:8080/x.html", "http://localhost:8080/x.html"},
		{"pkg.go.dev/net/http/index.html", "http://pkg.go.dev/net/http/index.html"},
		{"v1.2/notes.txt", "http://v1.2/notes.txt"}, // a dot is all a host needs
		{"notes/a.txt", "notes/a.txt"},
		{"localhostx/a.txt", "localhostx/a.txt"},
		{"a.txt", "a.txt"},                     // a file at the root has no host
		{"example.com", "example.com"},         // nor does a file named like one
		{"example./x.html", "example./x.html"}, // trailing dot
		{".example.com/x.html", ".example.com/x.html"},
		{"ex_ample.com/x.html", "ex_ample.com/x.html"},
		{"exämple.com/x.html", "exämple.com/x.html"},
		{"a b.com/x.html", "a b.com/x.html"},
		{"notes/example.com/x.html", "notes/example.com/x.html"}, // only the first component counts
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			if got := urlOf(tt.rel); got != tt.want {
				t.Errorf("urlOf(%q) = %q, want %q", tt.rel, got, tt.want)
			}
		})
	}
}

func TestWalk(t *testing.T) {
	root := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("example.com/a/z.txt", "z")
	write("example.com/a-b.htm", "<p>x</p>")
	write("example.com/a.md", "# md")
	write("example.com/page", "<html><body>sniffed</body></html>")
	write("example.com/page.HTML", "<p>upper-case extension</p>")
	write("example.com/big.txt", strings.Repeat("0123456789", 5))
	write("example.com/img.png", "\x89PNG\r\n\x1a\n")
	write("example.com/.hidden.txt", "hidden")
	write("example.com/.cache/x.txt", "hidden dir")
	write("notes/n.txt", "n")
	if err := os.Symlink(filepath.Join(root, "notes", "n.txt"), filepath.Join(root, "example.com", "link.txt")); err != nil {
		t.Fatal(err)
	}
	want := []docFile{ // walk order: "a" before "a-b.htm", "a.md"
		{url: "http://example.com/a/z.txt", path: "example.com/a/z.txt", size: 1, kind: extract.Text},
		{url: "http://example.com/a-b.htm", path: "example.com/a-b.htm", size: 8, kind: extract.HTML},
		{url: "http://example.com/a.md", path: "example.com/a.md", size: 4, kind: extract.Text},
		{url: "http://example.com/big.txt", path: "example.com/big.txt", size: 50, kind: extract.Text},
		{url: "http://example.com/link.txt", path: "notes/n.txt", size: 1, kind: extract.Text},
		{url: "http://example.com/page", path: "example.com/page", size: 33, kind: extract.HTML},
		{url: "http://example.com/page.HTML", path: "example.com/page.HTML", size: 27, kind: extract.HTML},
		{url: "notes/n.txt", path: "notes/n.txt", size: 1, kind: extract.Text},
	}
	tests := []struct {
		name     string
		oversize string
		skipped  string
	}{
		{"truncate", "truncate", ""},
		{"skip", "skip", "http://example.com/big.txt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rep Report
			files, err := walk(context.Background(), root, Options{MaxDocBytes: 40, Oversize: tt.oversize}.withDefaults(), &rep)
			if err != nil {
				t.Fatalf("walk: %v", err)
			}
			var exp []docFile
			for _, f := range want {
				if f.url != tt.skipped {
					f.path = filepath.Join(root, filepath.FromSlash(f.path))
					st, err := os.Stat(f.path)
					if err != nil {
						t.Fatal(err)
					}
					f.id, f.mtime = idOf(st), st.ModTime().UnixNano()
					exp = append(exp, f)
				}
			}
			if len(files) != len(exp) {
				t.Fatalf("walk found %d files %+v, want %d", len(files), files, len(exp))
			}
			for i := range exp {
				if files[i] != exp[i] {
					t.Errorf("walk file %d = %+v, want %+v", i, files[i], exp[i])
				}
			}
			wantOversize := 0
			if tt.skipped != "" {
				wantOversize = 1
			}
			if rep.Unsupported.Count != 1 || rep.Oversize.Count != wantOversize || rep.UnsafeSymlinks.Count != 0 || rep.Unreadable.Count != 0 || rep.Hidden.Count != 2 {
				t.Errorf("walk report = %+v, want 1 unsupported file, %d oversize and 2 hidden", rep, wantOversize)
			}
		})
	}
}
