package gpu

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// lookup is text_lookup's probe in Go.
func (t *dictTable) lookup(word []byte) (uint32, bool) {
	h := fnv1a(word)
	mask := uint32(len(t.slots) - 1)
	for p, i := 0, h&mask; p < len(t.slots); p, i = p+1, (i+1)&mask {
		s := t.slots[i]
		if s == emptyWord {
			break
		}
		id := uint32(s)
		if uint32(s>>32) == h && bytes.Equal(t.bytes[t.off[id]:t.off[id+1]], word) {
			return id, true
		}
	}
	return 0, false
}

func TestDictTable(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 1000, 4096} {
		dict := make([]string, n)
		for i := range dict {
			dict[i] = fmt.Sprintf("w%d", i*7)
		}
		tab, err := newDictTable(dict)
		if err != nil {
			t.Fatal(err)
		}
		if len(tab.slots) < 2*n || len(tab.slots)&(len(tab.slots)-1) != 0 {
			t.Errorf("%d words: %d slots, want a power of two >= %d", n, len(tab.slots), 2*n)
		}
		for id, w := range dict {
			if got, ok := tab.lookup([]byte(w)); !ok || got != uint32(id) {
				t.Errorf("%d words: lookup(%q) = %d, %v, want %d", n, w, got, ok, id)
			}
		}
		for _, w := range []string{"", "w1", "x", "w70000"} {
			if id, ok := tab.lookup([]byte(w)); ok {
				t.Errorf("%d words: lookup(%q) = %d, want none", n, w, id)
			}
		}
	}
}

func TestDictTableWordLength(t *testing.T) {
	for _, tc := range []struct {
		n  int
		ok bool
	}{{textSpill, true}, {textSpill + 1, false}} {
		_, err := newDictTable([]string{"a", strings.Repeat("x", tc.n)})
		if (err == nil) != tc.ok {
			t.Errorf("a word of %d bytes: error %v, want ok %v", tc.n, err, tc.ok)
		}
	}
}

func TestFNV1a(t *testing.T) {
	// The published FNV-1a 32-bit test vectors.
	for _, tc := range []struct {
		in   string
		want uint32
	}{{"", 0x811c9dc5}, {"a", 0xe40c292c}, {"foobar", 0xbf9cf968}} {
		if got := fnv1a([]byte(tc.in)); got != tc.want {
			t.Errorf("fnv1a(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

func TestPadText(t *testing.T) {
	for _, n := range []int{0, 1, textChunk - 1, textChunk, textChunk + 5} {
		text := bytes.Repeat([]byte("a"), n)
		p := padText(text)
		if len(p)%textChunk != 0 || len(p) <= n || !bytes.Equal(p[:n], text) || bytes.ContainsFunc(p[n:], func(r rune) bool { return r != ' ' }) {
			t.Errorf("padText(%d bytes): %d bytes, want text then spaces to a whole chunk, one at least", n, len(p))
		}
	}
}
