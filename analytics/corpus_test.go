package analytics

import (
	"encoding/json"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gpusearch/gpusearch/analytics/sequitur"
)

func TestWriteOpenRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	tests := []struct {
		name string
		docs [][]string
	}{
		{"empty", nil},
		{"empty docs", [][]string{{}, {}}},
		{"random", randomDocs(r, 40, 300, 100, 0.8)},
		{"unicode words", [][]string{{"größe", "日本", "größe", "日本"}, {"日本", "größe"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := corpusOf(t, tt.docs)
			dir := t.TempDir()
			if err := c.WriteDir(dir); err != nil {
				t.Fatal(err)
			}
			back, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			got := wordsOf(back, back.Decompress())
			want := tt.docs
			if want == nil {
				want = [][]string{}
			}
			for i := range want {
				if want[i] == nil {
					want[i] = []string{}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Open(WriteDir) decompresses to %v, want %v", abbrev(got), abbrev(want))
			}
			if !reflect.DeepEqual(back.URLs, c.URLs) && len(c.URLs) > 0 {
				t.Errorf("URLs = %v, want %v", back.URLs, c.URLs)
			}
		})
	}
}

// corruptDir writes a small corpus and applies damage to it.
func corruptDir(t *testing.T, damage func(dir string)) error {
	t.Helper()
	c := corpusOf(t, [][]string{{"a", "b", "a", "b", "c"}, {"a", "b", "c"}})
	dir := t.TempDir()
	if err := c.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	damage(dir)
	_, err := Open(dir)
	return err
}

// rewriteMeta edits meta.json.
func rewriteMeta(t *testing.T, dir string, edit func(*Meta)) {
	t.Helper()
	m, err := ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	edit(&m)
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, fileMeta), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// replaceFile writes data as name and makes meta.json vouch for it, so
// that only the structural checks can catch it.
func replaceFile(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	rewriteMeta(t, dir, func(m *Meta) {
		m.Files[name] = FileMeta{Size: int64(len(data)), CRC32: crc32c(data)}
	})
}

func crc32c(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

func TestOpenDamaged(t *testing.T) {
	grammarWith := func(g *sequitur.Grammar) []byte { return appendGrammar(nil, g) }
	tests := []struct {
		name    string
		damage  func(t *testing.T, dir string)
		version bool
	}{
		{"no meta", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, fileMeta)) }, false},
		{"bad meta json", func(t *testing.T, dir string) { os.WriteFile(filepath.Join(dir, fileMeta), []byte("{"), 0o644) }, false},
		{"other version", func(t *testing.T, dir string) { rewriteMeta(t, dir, func(m *Meta) { m.Format = 99 }) }, true},
		{"missing grammar", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, fileGrammar)) }, false},
		{"truncated grammar", func(t *testing.T, dir string) {
			p := filepath.Join(dir, fileGrammar)
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-1], 0o644)
		}, false},
		{"flipped dict byte", func(t *testing.T, dir string) {
			p := filepath.Join(dir, fileDict)
			b, _ := os.ReadFile(p)
			b[len(b)-1] ^= 1
			os.WriteFile(p, b, 0o644)
		}, false},
		{"token count", func(t *testing.T, dir string) { rewriteMeta(t, dir, func(m *Meta) { m.Tokens++ }) }, false},
		{"document count", func(t *testing.T, dir string) { rewriteMeta(t, dir, func(m *Meta) { m.Documents = 3 }) }, false},
		{"word count", func(t *testing.T, dir string) { rewriteMeta(t, dir, func(m *Meta) { m.Words = 1 }) }, false},
		{"no file entry", func(t *testing.T, dir string) { rewriteMeta(t, dir, func(m *Meta) { delete(m.Files, fileURLs) }) }, false},
		{"unsorted dict", func(t *testing.T, dir string) {
			replaceFile(t, dir, fileDict, appendStrings(nil, []string{"b", "a", "c"}))
		}, false},
		{"dict trailing bytes", func(t *testing.T, dir string) {
			replaceFile(t, dir, fileDict, append(appendStrings(nil, []string{"a", "b", "c"}), 0))
		}, false},
		{"dict string overruns", func(t *testing.T, dir string) { replaceFile(t, dir, fileDict, []byte{1, 9, 'a'}) }, false},
		{"huge count", func(t *testing.T, dir string) { replaceFile(t, dir, fileURLs, []byte{0xff, 0xff, 0xff, 0x7f}) }, false},
		{"bad uvarint", func(t *testing.T, dir string) { replaceFile(t, dir, fileURLs, []byte{0xff}) }, false},
		{"cyclic grammar", func(t *testing.T, dir string) {
			replaceFile(t, dir, fileGrammar, grammarWith(&sequitur.Grammar{
				RuleStart: []uint32{0, 2}, Body: []uint32{0, sequitur.RuleFlag},
				FileStart: []uint32{0, 1, 2}, Root: []uint32{sequitur.RuleFlag, 1},
			}))
		}, false},
		{"word out of range", func(t *testing.T, dir string) {
			replaceFile(t, dir, fileGrammar, grammarWith(&sequitur.Grammar{
				RuleStart: []uint32{0}, FileStart: []uint32{0, 1, 2}, Root: []uint32{7, 1},
			}))
		}, false},
		{"grammar lengths overrun", func(t *testing.T, dir string) { replaceFile(t, dir, fileGrammar, []byte{1, 5, 0, 0}) }, false},
		{"grammar symbol too large", func(t *testing.T, dir string) {
			replaceFile(t, dir, fileGrammar, []byte{0, 1, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
		}, false},
		{"exponential expansion", func(t *testing.T, dir string) {
			// Rule r+1 = r r: rule 40 expands to 2^41 words.
			g := &sequitur.Grammar{RuleStart: []uint32{0, 2}, Body: []uint32{0, 1}, FileStart: []uint32{0, 1, 1}}
			for r := uint32(0); r < 40; r++ {
				g.Body = append(g.Body, sequitur.RuleFlag|r, sequitur.RuleFlag|r)
				g.RuleStart = append(g.RuleStart, uint32(len(g.Body)))
			}
			g.Root = []uint32{sequitur.RuleFlag | 40}
			replaceFile(t, dir, fileGrammar, grammarWith(g))
			rewriteMeta(t, dir, func(m *Meta) { m.Rules = 41 })
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := corruptDir(t, func(dir string) { tt.damage(t, dir) })
			if err == nil {
				t.Fatal("Open(damaged) = nil error, want one")
			}
			t.Logf("Open() = %v", err)
			if tt.version && !errors.Is(err, ErrVersion) {
				t.Errorf("Open() = %v, want ErrVersion", err)
			}
		})
	}
}

func TestOpenRefusesDamageBehindChecksums(t *testing.T) {
	// Every structural error is ErrCorrupt.
	err := corruptDir(t, func(dir string) { replaceFile(t, dir, fileDict, appendStrings(nil, []string{"b", "a", "c"})) })
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("Open(unsorted dict) = %v, want ErrCorrupt", err)
	}
}

// FuzzDecodeGrammar feeds arbitrary bytes to the grammar decoder and the
// checks Open runs after it: an error or a grammar, never a panic.
func FuzzDecodeGrammar(f *testing.F) {
	b := NewBuilder()
	b.AddDoc("a", []string{"x", "y", "x", "y", "z", "x", "y", "z"})
	c := b.Corpus(Meta{})
	f.Add(appendGrammar(nil, c.Grammar), uint8(3), uint64(8))
	f.Add([]byte{1, 2, 0, 2, 1, 1, 0}, uint8(2), uint64(0))
	f.Fuzz(func(t *testing.T, data []byte, words uint8, tokens uint64) {
		g, err := decodeGrammar(data)
		if err != nil {
			return
		}
		if g.Validate(int(words)) != nil {
			return
		}
		lens := g.Lengths()
		if checkLengths(g, lens, tokens) != nil || tokens > 1<<20 {
			return
		}
		var n uint64
		for fi := range g.NumFiles() {
			n += uint64(len(g.Expand(nil, g.File(fi))))
		}
		if n != tokens {
			t.Fatalf("expanded %d words, checkLengths accepted %d", n, tokens)
		}
	})
}
