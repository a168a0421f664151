package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testOptions generates the crawl of testdata/src into a fresh folder.
func testOptions(t *testing.T) options {
	t.Helper()
	return options{src: filepath.Join("testdata", "src"), out: t.TempDir(), host: "pkg.go.dev", skip: "skipme"}
}

// readTree returns every file under root by its slash path.
func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := make(map[string][]byte)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatalf("reading %s: %v", root, err)
	}
	return files
}

func TestGenerateFiles(t *testing.T) {
	o := testOptions(t)
	st, err := generate(o)
	if err != nil {
		t.Fatalf("generate(%+v) = %v", o, err)
	}
	files := readTree(t, o.out)
	want := []string{
		"pkg.go.dev/index.html",
		"pkg.go.dev/greet/index.html",
		"pkg.go.dev/greet/func.Index.html",
		"pkg.go.dev/greet/func.NewGreeter.html",
		"pkg.go.dev/greet/type.Greeter.html",
		"pkg.go.dev/greet/loud/index.html",
		"pkg.go.dev/greet/loud/func.Shout.html",
	}
	for _, name := range want {
		if _, ok := files[name]; !ok {
			t.Errorf("generate wrote no %s", name)
		}
	}
	if len(files) != len(want) {
		t.Errorf("generate wrote %d files, want %d: %v", len(files), len(want), files)
	}
	var size int64
	for _, data := range files {
		size += int64(len(data))
	}
	if st != (stats{packages: 2, docs: len(want), bytes: size}) {
		t.Errorf("generate stats = %+v, want 2 packages, %d docs, %d bytes", st, len(want), size)
	}
}

func TestGeneratePages(t *testing.T) {
	o := testOptions(t)
	if _, err := generate(o); err != nil {
		t.Fatalf("generate(%+v) = %v", o, err)
	}
	files := readTree(t, o.out)
	tests := []struct {
		name    string
		file    string
		want    []string
		notWant []string
	}{
		{
			name: "package page escapes its doc",
			file: "pkg.go.dev/greet/index.html",
			want: []string{
				"<title>greet package - greet - Go Packages</title>",
				"&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quotes&quot;",
				`const Greeting = &#34;hello&#34;`,
				`<a href="type.Greeter.html#Greeter.Hello">func (*Greeter) Hello</a>`,
			},
			notWant: []string{"<b>bold", "OnlyWindows", "TestOnly"},
		},
		{
			name: "type page has fields, constructor, methods and doc links",
			file: "pkg.go.dev/greet/type.Greeter.html",
			want: []string{
				"// Name is who is greeted.\n\tName string",
				"// contains filtered or unexported fields",
				`<a href="func.NewGreeter.html">func NewGreeter(name string) *Greeter</a>`,
				`<h3 id="Greeter.Hello">func (*Greeter) Hello</h3>`,
				`<a href="type.Greeter.html#Greeter.Hello">Greeter.Hello</a>`,
				`<a href="func.Index.html">Index</a>`,
			},
			notWant: []string{"secret int"},
		},
		{
			name: "function page links to another package",
			file: "pkg.go.dev/greet/func.Index.html",
			want: []string{
				"<pre>func Index(names []string, name string) int</pre>",
				`<a href="../greet/loud/func.Shout.html">greet/loud.Shout</a>`,
				`<a href="../index.html">Standard library</a> &gt; <a href="index.html">greet</a>`,
			},
			notWant: []string{"return -1"},
		},
		{
			name:    "every page carries script and style",
			file:    "pkg.go.dev/greet/loud/func.Shout.html",
			want:    []string{"<script>", "<style>", "<noscript>", `<a href="../../index.html">`},
			notWant: []string{},
		},
		{
			name:    "root page lists the packages",
			file:    "pkg.go.dev/index.html",
			want:    []string{`<a href="greet/loud/index.html">greet/loud</a></td><td>Package loud shouts.</td>`},
			notWant: []string{"skipme", "secret", "tool"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page := string(files[tt.file])
			for _, s := range tt.want {
				if !strings.Contains(page, s) {
					t.Errorf("%s lacks %q; page:\n%s", tt.file, s, page)
				}
			}
			for _, s := range tt.notWant {
				if strings.Contains(page, s) {
					t.Errorf("%s holds %q; page:\n%s", tt.file, s, page)
				}
			}
		})
	}
}

func TestGenerateDeterministic(t *testing.T) {
	o1, o2 := testOptions(t), testOptions(t)
	for _, o := range []options{o1, o2} {
		if _, err := generate(o); err != nil {
			t.Fatalf("generate(%+v) = %v", o, err)
		}
	}
	a, b := readTree(t, o1.out), readTree(t, o2.out)
	if len(a) != len(b) {
		t.Fatalf("two runs wrote %d and %d files", len(a), len(b))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			t.Errorf("two runs wrote different %s", name)
		}
	}
}

func TestGenerateReplacesHost(t *testing.T) {
	o := testOptions(t)
	stale := filepath.Join(o.out, o.host, "stale.html")
	keep := filepath.Join(o.out, "other.host", "keep.html")
	for _, name := range []string{stale, keep} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := generate(o); err != nil {
		t.Fatalf("generate(%+v) = %v", o, err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("Stat(%s) = %v, want not exist", stale, err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("Stat(%s) = %v, want it kept", keep, err)
	}
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(*options)
	}{
		{"empty host", func(o *options) { o.host = "" }},
		{"host with slash", func(o *options) { o.host = "a/b" }},
		{"host dot dot", func(o *options) { o.host = ".." }},
		{"missing src", func(o *options) { o.src = filepath.Join("testdata", "nosuch") }},
		{"no packages", func(o *options) { o.skip = "greet,skipme" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := testOptions(t)
			tt.edit(&o)
			if _, err := generate(o); err == nil {
				t.Errorf("generate(%+v) = nil, want an error", o)
			}
		})
	}
}

func TestWriterRefusesCaseCollision(t *testing.T) {
	tests := []struct {
		name    string
		paths   []string
		wantErr bool
	}{
		{"distinct", []string{"a/func.Index.html", "a/index.html", "b/index.html"}, false},
		{"case only", []string{"a/type.URL.html", "a/type.Url.html"}, true},
		{"same twice", []string{"a/index.html", "a/index.html"}, true},
		{"escapes root", []string{"../x.html"}, true},
		{"unclean", []string{"a//x.html"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &writer{root: t.TempDir()}
			var err error
			for _, p := range tt.paths {
				if err = w.write(p, []byte("x")); err != nil {
					break
				}
			}
			if (err != nil) != tt.wantErr {
				t.Errorf("write(%q) = %v, want error %v", tt.paths, err, tt.wantErr)
			}
		})
	}
}
