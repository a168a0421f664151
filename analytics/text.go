package analytics

import (
	"fmt"
	"strings"
)

// IsSpace reports whether b is ASCII white space (space, \t, \n, \v, \f,
// \r): what separates the words of a corpus's text (Corpus.Text).
func IsSpace(b byte) bool { return b == ' ' || b >= '\t' && b <= '\r' }

// Text returns the corpus's words written as text, the input of the
// baseline that starts from text (analyze --plain --text): each
// document's words separated by one space, a newline after each document.
// It fails if a dictionary word holds ASCII white space, which the text
// could not delimit (the segmentation never makes one).
func (c *Corpus) Text() ([]byte, error) {
	for _, w := range c.Dict {
		if w == "" || strings.ContainsFunc(w, func(r rune) bool { return r < 0x80 && IsSpace(byte(r)) }) {
			return nil, fmt.Errorf("analytics: word %q cannot be written as text", w)
		}
	}
	flat, starts := c.words()
	size := 0
	for _, w := range flat {
		size += len(c.Dict[w]) + 1
	}
	text := make([]byte, 0, size+len(starts))
	for d := range len(starts) - 1 {
		for i, w := range flat[starts[d]:starts[d+1]] {
			if i > 0 {
				text = append(text, ' ')
			}
			text = append(text, c.Dict[w]...)
		}
		text = append(text, '\n')
	}
	return text, nil
}

// A Lexer turns text back into word ids by a dictionary: words are runs
// of bytes other than ASCII white space, and a newline ends a document.
// It is the CPU side of the baseline that starts from text.
type Lexer struct {
	ids map[string]uint32
}

// NewLexer returns a Lexer for the words of dict (word id = index).
func NewLexer(dict []string) *Lexer {
	ids := make(map[string]uint32, len(dict))
	for i, w := range dict {
		ids[w] = uint32(i)
	}
	return &Lexer{ids: ids}
}

// Docs returns the word ids of each document of text; the words of all
// documents share one slice. A word not in the dictionary, or words after
// the last newline, are an error.
func (l *Lexer) Docs(text []byte) ([][]uint32, error) {
	var words []uint32
	var ends []int
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == '\n':
			ends = append(ends, len(words))
			i++
		case IsSpace(c):
			i++
		default:
			j := i + 1
			for j < len(text) && !IsSpace(text[j]) {
				j++
			}
			id, ok := l.ids[string(text[i:j])]
			if !ok {
				return nil, fmt.Errorf("analytics: text byte %d: %q is not in the dictionary", i, text[i:j])
			}
			words = append(words, id)
			i = j
		}
	}
	if len(ends) == 0 && len(words) > 0 || len(ends) > 0 && ends[len(ends)-1] != len(words) {
		return nil, fmt.Errorf("analytics: the text's last document has no newline")
	}
	docs := make([][]uint32, len(ends))
	start := 0
	for d, end := range ends {
		docs[d] = words[start:end:end]
		start = end
	}
	return docs, nil
}
