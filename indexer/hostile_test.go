package indexer_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/indexer"
)

// mkfile writes a file under root, creating its directories.
func mkfile(t *testing.T, root, rel string, data []byte) string {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// hasName reports whether a problem's first names include one containing s.
func hasName(p indexer.Problem, s string) bool {
	return slices.ContainsFunc(p.First, func(n string) bool { return strings.Contains(n, s) })
}

var vcOpts = indexer.Options{DocIDCodec: "varint-SU", FreqCodec: "varint-SU", Workers: 2}

func TestHostileCrawl(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	docs := map[string]string{} // url -> text the index must hold
	add := func(rel, text string) {
		mkfile(t, root, rel, []byte(text))
		docs[urlFor(rel)] = text
	}
	mkfile(t, root, "example.com/index.html", []byte("<html><title>front page</title><p>welcome home</p></html>"))
	docs["http://example.com/index.html"] = "front page welcome home"
	add("example.com/empty.txt", "")
	add("example.com/my page ü.md", "spaces and umlauts in the name")
	add("notes/real.txt", "the real target of an inside link")
	deep := strings.Repeat("<div>", 100_000) + "<p>deep nested words</p>" + strings.Repeat("</div>", 100_000)
	mkfile(t, root, "example.com/deep.html", []byte(deep))
	docs["http://example.com/deep.html"] = "deep nested words"
	unclosed := "<html><body>" + strings.Repeat("<span><b><i>", 30_000) + "never closed"
	mkfile(t, root, "example.com/unclosed.html", []byte(unclosed))
	docs["http://example.com/unclosed.html"] = "never closed"
	bad := "hello\xffworld \xc3\x28 again\xe2\x82 caf\xc3\xa9"
	mkfile(t, root, "example.com/bad-utf8.txt", []byte(bad))
	docs["http://example.com/bad-utf8.txt"] = strings.ToValidUTF8(bad, "\uFFFD")
	badHTML := "<p>broken\xfe\xfftext</p><p>\xc0\xafslash</p>"
	mkfile(t, root, "example.com/bad-utf8.html", []byte(badHTML))
	docs["http://example.com/bad-utf8.html"] = strings.ToValidUTF8("broken\xfe\xfftext slash", "\uFFFD")
	// Sniffed: no extension, HTML content.
	mkfile(t, root, "example.com/page", []byte("<!DOCTYPE html><html><body><p>sniffed html</p></body></html>"))
	docs["http://example.com/page"] = "sniffed html"
	// An inside link is indexed under its own path.
	symlink(t, filepath.Join(root, "notes", "real.txt"), filepath.Join(root, "example.com", "alias.txt"))
	docs["http://example.com/alias.txt"] = docs["notes/real.txt"]
	symlink(t, "../notes/real.txt", filepath.Join(root, "example.com", "relalias.txt"))
	docs["http://example.com/relalias.txt"] = docs["notes/real.txt"]

	// Not documents.
	mkfile(t, root, "example.com/.hidden.txt", []byte("hidden file"))
	mkfile(t, root, ".git/HEAD.txt", []byte("hidden dir"))
	mkfile(t, root, "example.com/logo.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR binary"))
	mkfile(t, root, "example.com/blob.dat", []byte{0, 1, 2, 3, 0xff, 0xfe, 0, 0})
	mkfile(t, root, "example.com/notes.xyz", []byte("plain text under an unknown extension"))
	mkfile(t, root, "example.com/style.css", []byte("body { color: red }"))
	if err := syscall.Mkfifo(filepath.Join(root, "example.com", "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	unsupported := []string{"logo.png", "blob.dat", "notes.xyz", "style.css", "pipe.txt"}
	secret := mkfile(t, outside, "secret.txt", []byte("outside secret"))
	mkfile(t, outside, "dir/more.txt", []byte("outside dir"))
	symlink(t, secret, filepath.Join(root, "example.com", "out.txt"))
	symlink(t, "../../"+filepath.Base(outside)+"/secret.txt", filepath.Join(root, "example.com", "relout.txt"))
	symlink(t, root, filepath.Join(root, "example.com", "loop"))
	symlink(t, filepath.Join(outside, "dir"), filepath.Join(root, "example.com", "outdir"))
	symlink(t, filepath.Join(root, "notes"), filepath.Join(root, "example.com", "notesdir"))
	symlink(t, filepath.Join(root, "example.com", "pipe.txt"), filepath.Join(root, "example.com", "pipelink.txt"))
	symlink(t, filepath.Join(root, "nowhere.txt"), filepath.Join(root, "example.com", "dangling.txt"))
	unsafeLinks := []string{"out.txt", "relout.txt", "loop", "outdir", "notesdir", "pipelink.txt"}

	ix, rep, _ := build(t, root, vcOpts)
	var urls []string
	for u := range docs {
		urls = append(urls, u)
	}
	slices.Sort(urls)
	compare(t, ix, invert(urls, docs))
	if rep.Documents != len(docs) {
		t.Errorf("Report.Documents = %d, want %d", rep.Documents, len(docs))
	}
	if rep.Unsupported.Count != len(unsupported) {
		t.Errorf("Report.Unsupported = %+v, want %d (%v)", rep.Unsupported, len(unsupported), unsupported)
	}
	for _, name := range unsupported[:min(len(unsupported), 5)] {
		if !hasName(rep.Unsupported, name) {
			t.Errorf("Report.Unsupported.First = %v, want it to name %s", rep.Unsupported.First, name)
		}
	}
	// The dangling link is not followed either; it may be counted as unsafe
	// or as unreadable.
	if got := rep.UnsafeSymlinks.Count + rep.Unreadable.Count; got != len(unsafeLinks)+1 {
		t.Errorf("Report.UnsafeSymlinks = %+v, Unreadable = %+v; want %d links reported", rep.UnsafeSymlinks, rep.Unreadable, len(unsafeLinks)+1)
	}
	if rep.UnsafeSymlinks.Count < len(unsafeLinks) {
		t.Errorf("Report.UnsafeSymlinks = %+v, want at least %v", rep.UnsafeSymlinks, unsafeLinks)
	}
	if rep.Oversize.Count != 0 {
		t.Errorf("Report.Oversize = %+v, want none", rep.Oversize)
	}
	a := analysis.New()
	for _, w := range []string{"outside", "secret", "hidden", "png", "ihdr", "unknown", "color"} {
		if _, ok := ix.Lookup(a.Terms(w)[0]); ok {
			t.Errorf("term %q from a file that is not a document is indexed", w)
		}
	}
	for _, w := range []string{"hello", "world", "again", "deep", "closed", "sniffed", "broken", "slash"} {
		if _, ok := ix.Lookup(a.Terms(w)[0]); !ok {
			t.Errorf("term %q is missing", w)
		}
	}
}

func TestOversize(t *testing.T) {
	const maxBytes = 1000
	root := t.TempDir()
	big := strings.Repeat("lorem ipsum dolor sit amet ", 200) // 5400 bytes
	mkfile(t, root, "example.com/big.txt", []byte(big))
	mkfile(t, root, "example.com/bightml.html", []byte("<p>"+big+"</p>"))
	exact := strings.Repeat("x", maxBytes-4) + " end"
	mkfile(t, root, "example.com/exact.txt", []byte(exact))
	mkfile(t, root, "example.com/small.txt", []byte("small file"))
	tests := []struct {
		policy string
		docs   map[string]string
	}{
		{"truncate", map[string]string{
			"http://example.com/big.txt":   big[:maxBytes],
			"http://example.com/exact.txt": exact,
			"http://example.com/small.txt": "small file",
			// Cut at maxBytes before extraction: the closing tag is lost.
			"http://example.com/bightml.html": big[:maxBytes-3],
		}},
		{"skip", map[string]string{
			"http://example.com/exact.txt": exact,
			"http://example.com/small.txt": "small file",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.policy, func(t *testing.T) {
			opts := vcOpts
			opts.MaxDocBytes, opts.Oversize = maxBytes, tt.policy
			ix, rep, _ := build(t, root, opts)
			var urls []string
			var input int64
			for u, s := range tt.docs {
				urls = append(urls, u)
				input += int64(len(s))
			}
			slices.Sort(urls)
			if tt.policy == "truncate" {
				input += 3 // "<p>" of bightml.html
			}
			compare(t, ix, invert(urls, tt.docs))
			if rep.Oversize.Count != 2 || !hasName(rep.Oversize, "big.txt") || !hasName(rep.Oversize, "bightml.html") {
				t.Errorf("Report.Oversize = %+v, want big.txt and bightml.html", rep.Oversize)
			}
			if rep.InputBytes != input {
				t.Errorf("Report.InputBytes = %d, want %d", rep.InputBytes, input)
			}
		})
	}
}

func TestUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: chmod 000 does not make a file unreadable")
	}
	root := t.TempDir()
	mkfile(t, root, "example.com/ok.txt", []byte("readable words"))
	locked := mkfile(t, root, "example.com/locked.txt", []byte("locked words"))
	lockedDir := filepath.Join(root, "example.com", "lockeddir")
	mkfile(t, root, "example.com/lockeddir/inner.txt", []byte("inner words"))
	for _, p := range []string{locked, lockedDir} {
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(p, 0o755) })
	}
	ix, rep, _ := build(t, root, vcOpts)
	compare(t, ix, invert([]string{"http://example.com/ok.txt"}, map[string]string{"http://example.com/ok.txt": "readable words"}))
	if rep.Unreadable.Count != 2 || !hasName(rep.Unreadable, "locked.txt") || !hasName(rep.Unreadable, "lockeddir") {
		t.Errorf("Report.Unreadable = %+v, want locked.txt and lockeddir", rep.Unreadable)
	}
}

// TestSymlinkedRoot indexes a crawl reached through a symbolic link: the
// URLs are relative to the crawl, not to the link.
func TestSymlinkedRoot(t *testing.T) {
	real := t.TempDir()
	mkfile(t, real, "example.com/a.txt", []byte("linked root"))
	link := filepath.Join(t.TempDir(), "crawl")
	symlink(t, real, link)
	ix, _, _ := build(t, link, vcOpts)
	if ix.NumDocs() != 1 || ix.URL(0) != "http://example.com/a.txt" {
		t.Errorf("index of a linked crawl: %d documents, URL(0) = %q; want 1, http://example.com/a.txt", ix.NumDocs(), ix.URL(0))
	}
}

// TestEmptyCrawl indexes a crawl with no documents.
func TestEmptyCrawl(t *testing.T) {
	root := t.TempDir()
	mkfile(t, root, "example.com/logo.png", []byte("\x89PNG\r\n\x1a\n"))
	ix, rep, _ := build(t, root, vcOpts)
	if ix.NumDocs() != 0 || ix.NumTerms() != 0 || rep.Documents != 0 || rep.Unsupported.Count != 1 {
		t.Errorf("empty crawl: %d documents, %d terms, report %+v; want an empty index and one unsupported file", ix.NumDocs(), ix.NumTerms(), rep)
	}
	if _, ok := ix.Lookup("png"); ok {
		t.Errorf("Lookup in an empty index found a term")
	}
}
