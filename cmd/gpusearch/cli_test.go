package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

// runMainEnv, when set to 1 in a process's environment, makes the test
// binary run main instead of the tests: the CLI tests run this binary as
// gpusearch, so that no second binary need be built and linked.
const runMainEnv = "GPUSEARCH_TEST_RUN_MAIN"

// sampleCrawl is the bundled sample crawl, relative to this package.
const sampleCrawl = "../../examples/crawl"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// cliCommand returns a command that runs gpusearch with args.
func cliCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	return cmd
}

// cliResult is one run of the binary.
type cliResult struct {
	code           int
	stdout, stderr string
}

// runCLI runs the binary with args and returns its exit status and output.
func runCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	cmd := cliCommand(t, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run gpusearch %v: %v", args, err)
	}
	return res
}

// mustRun runs the binary and fails the test unless it exits 0.
func mustRun(t *testing.T, args ...string) cliResult {
	t.Helper()
	res := runCLI(t, args...)
	if res.code != 0 {
		t.Fatalf("gpusearch %v: exit %d\nstderr: %s", args, res.code, res.stderr)
	}
	return res
}

// cliSearch is the JSON contract of `search --json`, decoded on its own
// so that the test checks the printed shape rather than a Go type.
type cliSearch struct {
	Query  string `json:"query"`
	Mode   string `json:"mode"`
	Engine string `json:"engine"`
	Hits   []struct {
		DocID      uint32   `json:"docid"`
		URL        string   `json:"url"`
		Score      float32  `json:"score"`
		Title      string   `json:"title"`
		Snippet    string   `json:"snippet"`
		Highlights [][2]int `json:"highlights"`
	} `json:"hits"`
}

// cliInspection is the part of `inspect --json` the test checks.
type cliInspection struct {
	Version        int              `json:"version"`
	Documents      uint64           `json:"documents"`
	Terms          uint64           `json:"terms"`
	Postings       uint64           `json:"postings"`
	Bytes          int64            `json:"bytes"`
	FileBytes      map[string]int64 `json:"file_bytes"`
	PositionsCodec string           `json:"positions_codec"`
	DocIDCodec     string           `json:"docid_codec"`
	FreqCodec      string           `json:"freq_codec"`
	Order          string           `json:"order"`
	TitleWeight    uint32           `json:"title_weight"`
	TopTerms       []struct {
		Term string `json:"term"`
		DF   uint32 `json:"df"`
	} `json:"top_terms"`
}

// cliCodecs are the codecs the CLI tests index with.
func cliCodecs() []string {
	codecs := []string{"varint-SU"}
	if slices.Contains(codecplugins.Names(), "bp128") {
		codecs = append(codecs, "bp128")
	}
	return codecs
}

func TestCLIIndexInspectSearch(t *testing.T) {
	for _, codec := range cliCodecs() {
		t.Run(codec, func(t *testing.T) {
			idx := filepath.Join(t.TempDir(), "idx")
			res := mustRun(t, "index", "--quiet", "--json", "--codec", codec, "--out", idx, sampleCrawl)
			if res.stderr != "" {
				t.Errorf("index --quiet wrote to stderr: %q", res.stderr)
			}
			var built struct {
				Documents    int     `json:"documents"`
				Terms        int     `json:"terms"`
				Postings     uint64  `json:"postings"`
				IndexBytes   int64   `json:"index_bytes"`
				BitsPerDocID float64 `json:"bits_per_docid"`
				Unsupported  struct {
					Count int `json:"count"`
				} `json:"unsupported"`
			}
			if err := json.Unmarshal([]byte(res.stdout), &built); err != nil {
				t.Fatalf("index --json printed %q: %v", res.stdout, err)
			}
			if built.Documents < 2000 || built.Terms == 0 || built.Postings == 0 || built.IndexBytes == 0 || built.BitsPerDocID <= 0 {
				t.Errorf("index --json = %+v, want the sample crawl's ~2500 documents", built)
			}

			res = mustRun(t, "inspect", "--index", idx, "--json")
			var in cliInspection
			if err := json.Unmarshal([]byte(res.stdout), &in); err != nil {
				t.Fatalf("inspect --json printed %q: %v", res.stdout, err)
			}
			if in.Documents != uint64(built.Documents) || in.Terms != uint64(built.Terms) || in.Postings != built.Postings ||
				in.Bytes != built.IndexBytes || in.DocIDCodec != codec || in.FreqCodec != codec || in.Order != "url" || in.Version != index.FormatVersion {
				t.Errorf("inspect --json = %+v, disagrees with index --json %+v", in, built)
			}
			// The five data files, the document store's two (index.store:
			// text), the positions (index.positions: true) and the sources.
			if len(in.FileBytes) != 9 || len(in.TopTerms) != 20 || in.PositionsCodec != codec ||
				!sort.SliceIsSorted(in.TopTerms, func(i, j int) bool { return in.TopTerms[i].DF > in.TopTerms[j].DF }) {
				t.Errorf("inspect --json: %d files, top terms %v, positions codec %q; want 9 files, 20 terms by df and %s", len(in.FileBytes), in.TopTerms, in.PositionsCodec, codec)
			}
			res = mustRun(t, "inspect", "--index", idx)
			if !strings.Contains(res.stdout, fmt.Sprintf("documents     %d", built.Documents)) {
				t.Errorf("inspect printed %q, want the document count", res.stdout)
			}

			ix, err := index.Open(idx)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			ref := query.NewExhaustive(ix)
			for _, tt := range []struct {
				mode, k string
				words   []string
			}{
				{"or", "5", []string{"http", "server", "timeout"}},
				{"and", "10", []string{"http", "server", "timeout"}},
				{"andor", "3", []string{"read", "file"}},
				{"and", "10", []string{"Reader", "qqnosuchword"}},
				{"or", "1000", []string{"byte"}},
			} {
				args := append([]string{"search", "--index", idx, "--json", "--mode", tt.mode, "--k", tt.k}, tt.words...)
				res := mustRun(t, args...)
				var got cliSearch
				if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
					t.Fatalf("search --json printed %q: %v", res.stdout, err)
				}
				text := strings.Join(tt.words, " ")
				var k int
				fmt.Sscan(tt.k, &k)
				q, err := query.Parse(analysis.New(), text, query.Mode(tt.mode), k)
				if err != nil {
					t.Fatal(err)
				}
				want, err := ref.Search(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				if got.Query != text || got.Mode != tt.mode || len(got.Hits) != len(want.Hits) {
					t.Fatalf("search %v: query %q, mode %q, %d hits; want %q, %q, %d hits", args, got.Query, got.Mode, len(got.Hits), text, tt.mode, len(want.Hits))
				}
				for i, h := range got.Hits {
					w := want.Hits[i]
					if h.DocID != w.DocID || h.Score != w.Score || h.URL != ix.URL(w.DocID) {
						t.Errorf("search %v: hit %d = %+v, want docid %d, score %v, url %s", args, i, h, w.DocID, w.Score, ix.URL(w.DocID))
					}
					if h.Title == "" || h.Snippet == "" || len(h.Highlights) == 0 && tt.mode == "and" {
						t.Errorf("search %v: hit %d has no title, snippet or highlights: %+v", args, i, h)
					}
				}
				if slices.Contains(tt.words, "qqnosuchword") && (len(got.Hits) != 0 || !strings.Contains(res.stdout, `"hits": []`)) {
					t.Errorf("search %v: want an empty hits array, got %s", args, res.stdout)
				}
				if tt.words[0] == "http" && (len(got.Hits) == 0 || !strings.HasPrefix(got.Hits[0].URL, "http://pkg.go.dev/")) {
					t.Errorf("search %v: want pkg.go.dev hits, got %+v", args, got.Hits)
				}
			}
			// Plain output: rank, score and title, then the URL and the
			// snippet, indented under the title.
			plain := mustRun(t, "search", "--index", idx, "--mode", "and", "--k", "1", "http", "server", "timeout")
			lines := strings.Split(strings.TrimRight(plain.stdout, "\n"), "\n")
			if len(lines) != 3 || !strings.HasSuffix(lines[0], " - Go Packages") ||
				!strings.HasPrefix(lines[1], strings.Repeat(" ", 15)+"http://pkg.go.dev/") || !strings.Contains(strings.ToLower(lines[2]), "server") {
				t.Errorf("search prints %q, want a title line, a URL line and a snippet line", plain.stdout)
			}
		})
	}
}

// TestCLIErrors checks exit statuses: 2 for usage errors, 1 for the rest,
// each with a one-line reason on stderr.
func TestCLIErrors(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	mustRun(t, "index", "--quiet", "--codec", "varint-SU", "--out", idx, sampleCrawl)
	noPositions := filepath.Join(t.TempDir(), "idx")
	mustRun(t, "index", "--quiet", "--codec", "varint-SU", "--store", "none", "--positions=false", "--out", noPositions, sampleCrawl)
	notIndex := t.TempDir()
	os.WriteFile(filepath.Join(notIndex, "readme.txt"), []byte("not an index"), 0o644)
	// A copy of the index with one bit of lexicon.bin flipped.
	damaged := t.TempDir()
	if err := os.CopyFS(damaged, os.DirFS(idx)); err != nil {
		t.Fatal(err)
	}
	m, err := index.ReadMeta(damaged)
	if err != nil {
		t.Fatal(err)
	}
	lexicon := filepath.Join(damaged, m.Generation, "lexicon.bin")
	b, err := os.ReadFile(lexicon)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(lexicon, b, 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name string
		args []string
		code int
		want []string // substrings of stderr
	}{
		{"search with a bad mode", []string{"search", "--index", idx, "--mode", "xor", "http"}, 2, []string{"xor"}},
		{"split into no shards", []string{"split", "--shards", "0", idx, filepath.Join(t.TempDir(), "c")}, 2, []string{"--shards"}},
		{"split into an index", []string{"split", "--shards", "2", idx, noPositions}, 1, []string{"holds an index"}},
		{"index --shards without a count", []string{"index", "--shards", "0", "--out", filepath.Join(t.TempDir(), "c"), sampleCrawl}, 2, []string{"--shards"}},
		{"gen index --shards without a count", []string{"gen", "index", "--docs", "100", "--shards", "0", "--out", filepath.Join(t.TempDir(), "c")}, 2, []string{"--shards"}},
		{"gen index --shards in random order", []string{"gen", "index", "--docs", "100", "--shards", "2", "--order", "random", "--out", filepath.Join(t.TempDir(), "c")}, 2, []string{"url order"}},
		{"search with k zero", []string{"search", "--index", idx, "--k", "0", "http"}, 2, []string{"--k"}},
		{"search without a query", []string{"search", "--index", idx}, 2, nil},
		{"search with an unbalanced quote", []string{"search", "--index", idx, `"http`, "server"}, 2, []string{"unbalanced"}},
		{"search for a phrase without positions", []string{"search", "--index", noPositions, `"http server"`}, 1, []string{"index.positions: true"}},
		{"search with an unknown engine", []string{"search", "--index", idx, "--engine", "quantum", "http"}, 2, []string{"quantum"}},
		{"index without a crawl", []string{"index", "--out", filepath.Join(t.TempDir(), "x")}, 2, nil},
		{"unknown command", []string{"frobnicate"}, 2, []string{"frobnicate"}},
		{"unknown flag", []string{"search", "--index", idx, "--bogus", "http"}, 2, []string{"bogus"}},
		{"inspect a directory that is not an index", []string{"inspect", "--index", notIndex}, 1, []string{"meta.json"}},
		{"inspect a missing directory", []string{"inspect", "--index", filepath.Join(notIndex, "nope")}, 1, []string{"meta.json"}},
		{"inspect a damaged index", []string{"inspect", "--index", damaged, "--json"}, 1, []string{"lexicon.bin", "corrupt"}},
		{"search a directory that is not an index", []string{"search", "--index", notIndex, "http"}, 1, []string{"meta.json"}},
		{"index with an unknown codec", []string{"index", "--quiet", "--codec", "nosuch", "--out", filepath.Join(t.TempDir(), "x"), sampleCrawl}, 1,
			append([]string{"nosuch"}, codecplugins.Names()...)},
		{"index with a title weight and positions", []string{"index", "--quiet", "--title-weight", "2", "--out", filepath.Join(t.TempDir(), "x"), sampleCrawl}, 1, []string{"index.positions: false"}},
		{"index a compressed corpus with a title weight", []string{"index", "--quiet", "--title-weight", "2", "--positions=false", "--from-compressed", t.TempDir(), "--out", filepath.Join(t.TempDir(), "x")}, 2, []string{"--from-compressed"}},
		{"index with a negative title weight", []string{"index", "--quiet", "--title-weight", "-1", "--positions=false", "--out", filepath.Join(t.TempDir(), "x"), sampleCrawl}, 1, []string{"title weight -1"}},
		{"index a missing crawl", []string{"index", "--quiet", "--codec", "varint-SU", "--out", filepath.Join(t.TempDir(), "x"), filepath.Join(notIndex, "nope")}, 1, []string{"nope"}},
		{"missing config file", []string{"search", "--config", filepath.Join(notIndex, "nope.yaml"), "--index", idx, "http"}, 1, []string{"nope.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCLI(t, tt.args...)
			if res.code != tt.code {
				t.Errorf("gpusearch %v: exit %d, want %d (stderr %q)", tt.args, res.code, tt.code, res.stderr)
			}
			if res.stdout != "" {
				t.Errorf("gpusearch %v: stdout %q, want nothing", tt.args, res.stdout)
			}
			line := strings.TrimSuffix(res.stderr, "\n")
			if line == "" || strings.Contains(line, "\n") || !strings.HasPrefix(line, "gpusearch: ") {
				t.Errorf("gpusearch %v: stderr %q, want one line starting with \"gpusearch: \"", tt.args, res.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("gpusearch %v: stderr %q, want it to mention %q", tt.args, res.stderr, w)
				}
			}
		})
	}
}

// openSampleIndex indexes the sample crawl into a temporary directory and
// opens it; the index is closed when the test ends.
func openSampleIndex(t *testing.T) (*index.Index, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "idx")
	mustRun(t, "index", "--quiet", "--out", dir, sampleCrawl)
	ix, err := index.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix, dir
}

// TestCLITitleWeight builds an index with a title weight: inspect shows
// it, and an update asking for another weight, by flag or config, is
// refused.
func TestCLITitleWeight(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	mustRun(t, "index", "--quiet", "--codec", "varint-SU", "--store", "none", "--positions=false", "--title-weight", "2", "--out", idx, sampleCrawl)
	var in cliInspection
	if res := mustRun(t, "inspect", "--index", idx, "--json"); json.Unmarshal([]byte(res.stdout), &in) != nil || in.TitleWeight != 2 {
		t.Errorf("inspect --json printed %q, want title_weight 2", res.stdout)
	}
	if res := mustRun(t, "inspect", "--index", idx); !strings.Contains(res.stdout, "title weight 2") {
		t.Errorf("inspect printed %q, want the title weight", res.stdout)
	}
	if res := runCLI(t, "index", "--update", "--quiet", "--title-weight", "3", "--out", idx, sampleCrawl); res.code != 2 || !strings.Contains(res.stderr, "--title-weight") {
		t.Errorf("index --update --title-weight 3: exit %d, stderr %q; want 2 refusing the flag", res.code, res.stderr)
	}
	cfg := filepath.Join(t.TempDir(), "w3.yaml")
	if err := os.WriteFile(cfg, []byte("index:\n  title_weight: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := runCLI(t, "index", "--update", "--quiet", "--config", cfg, "--out", idx, sampleCrawl); res.code != 1 || !strings.Contains(res.stderr, "title weight 2, not 3") {
		t.Errorf("index --update under title_weight 3 of a weight 2 index: exit %d, stderr %q; want 1 naming both weights", res.code, res.stderr)
	}
	mustRun(t, "index", "--update", "--quiet", "--out", idx, sampleCrawl)
}
