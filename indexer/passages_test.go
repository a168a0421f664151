package indexer

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
)

// words returns n distinct words, prefix plus a number spelled in letters
// (so that each word is one term that Porter2 leaves alone).
func words(prefix string, n int) string {
	const digits = "bcdfghjkmn"
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(prefix)
		for _, c := range fmt.Sprint(i) {
			b.WriteByte(digits[c-'0'])
		}
	}
	return b.String()
}

func TestSplitPassages(t *testing.T) {
	tests := []struct {
		terms, size int
		want        []uint32
	}{
		{0, 100, []uint32{0}},
		{40, 100, []uint32{40}},
		{149, 100, []uint32{149}},
		{150, 100, []uint32{75, 75}},
		{250, 100, []uint32{83, 83, 84}},
		{1000, 100, []uint32{100, 100, 100, 100, 100, 100, 100, 100, 100, 100}},
		{7, 1, []uint32{1, 1, 1, 1, 1, 1, 1}},
	}
	a := analysis.New()
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d terms by %d", tt.terms, tt.size), func(t *testing.T) {
			ps := splitPassages(a, []byte(words("q", tt.terms)), tt.size, false)
			var got []uint32
			total := 0
			for _, p := range ps {
				got = append(got, p.length)
				for _, f := range p.terms.tfs {
					total += int(f)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("splitPassages(%d terms, %d) lengths = %v, want %v", tt.terms, tt.size, got, tt.want)
			}
			if total != tt.terms {
				t.Errorf("passages hold %d term occurrences, want %d", total, tt.terms)
			}
		})
	}
}

// buildPassages indexes a three-document crawl in passage mode.
func buildPassages(t *testing.T, workers int) string {
	t.Helper()
	crawl := t.TempDir()
	docs := map[string]string{
		"a.txt": words("a", 250),
		"b.txt": words("b", 40),
		"c.txt": words("c", 1000),
	}
	// One modification time for every crawl: the index records it
	// (sources.bin, which meta.json checksums).
	mtime := time.Unix(1_700_000_000, 0)
	for name, text := range docs {
		if err := os.WriteFile(filepath.Join(crawl, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(filepath.Join(crawl, name), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	rep, err := Build(context.Background(), crawl, out, Options{Passages: 100, Workers: workers})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	if rep.Documents != 14 {
		t.Errorf("Build made %d documents, want 14 passages", rep.Documents)
	}
	return out
}

func TestPassageMode(t *testing.T) {
	out := buildPassages(t, 3)
	ix, err := index.Open(out)
	if err != nil {
		t.Fatalf("index.Open: %v", err)
	}
	defer ix.Close()
	type doc struct {
		url string
		len uint32
	}
	want := []doc{{"a.txt#p1", 83}, {"a.txt#p2", 83}, {"a.txt#p3", 84}, {"b.txt#p1", 40}}
	for i := 1; i <= 10; i++ {
		want = append(want, doc{fmt.Sprintf("c.txt#p%d", i), 100})
	}
	if ix.NumDocs() != len(want) {
		t.Fatalf("NumDocs() = %d, want %d", ix.NumDocs(), len(want))
	}
	for d, w := range want {
		if got := (doc{ix.URL(uint32(d)), ix.DocLen(uint32(d))}); got != w {
			t.Errorf("document %d = %+v, want %+v", d, got, w)
		}
	}
	// Each word is in the passage that holds its position.
	a := analysis.New()
	for _, tt := range []struct {
		word  string
		docid uint32
	}{
		{words("a", 1), 0}, {strings.Fields(words("a", 84))[83], 1}, {strings.Fields(words("a", 250))[249], 2},
		{strings.Fields(words("b", 40))[39], 3},
		{strings.Fields(words("c", 151))[150], 5}, {strings.Fields(words("c", 1000))[999], 13},
	} {
		term := a.Terms(tt.word)[0]
		info, ok := ix.Lookup(term)
		if !ok {
			t.Errorf("term %q not in the index", term)
			continue
		}
		c := ix.Cursor(info)
		if c.DocID() != tt.docid || info.DF != 1 {
			t.Errorf("term %q: first docid %d, df %d; want docid %d, df 1", term, c.DocID(), info.DF, tt.docid)
		}
	}
}

func TestPassageModeWorkerIndependent(t *testing.T) {
	one, four := buildPassages(t, 1), buildPassages(t, 4)
	for _, name := range []string{"gen-1/docids.bin", "gen-1/freqs.bin", "gen-1/lexicon.bin", "gen-1/doclens.bin", "gen-1/urls.bin", "meta.json"} {
		x, err1 := os.ReadFile(filepath.Join(one, name))
		y, err2 := os.ReadFile(filepath.Join(four, name))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between 1 and 4 workers (%v, %v)", name, err1, err2)
		}
	}
}
