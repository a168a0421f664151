package collection

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// record is one SMART record: its .I id and its fields by letter.
type record struct {
	id     string
	fields map[byte]string
}

// readSMART parses a SMART-format file (".I id" records of ".X" fields).
func readSMART(path string) ([]record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("collection: %w", err)
	}
	defer f.Close()
	recs, err := parseSMART(f)
	if err != nil {
		return nil, fmt.Errorf("collection: %s: %w", path, err)
	}
	return recs, nil
}

// parseSMART parses SMART records from r (see the package doc).
func parseSMART(r io.Reader) ([]record, error) {
	var recs []record
	var field byte // current field letter; 0 before the record's first
	var text strings.Builder
	flush := func() {
		if field != 0 {
			recs[len(recs)-1].fields[field] = strings.TrimSpace(text.String())
		}
		text.Reset()
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if id, ok := strings.CutPrefix(line, ".I"); ok && (id == "" || id[0] == ' ') {
			flush()
			id = strings.TrimSpace(id)
			if id == "" {
				return nil, fmt.Errorf("line %d: .I without an id", n)
			}
			recs = append(recs, record{id: id, fields: map[byte]string{}})
			field = 0
			continue
		}
		if len(line) == 2 && line[0] == '.' && 'A' <= line[1] && line[1] <= 'Z' && !seenField(recs, field, line[1]) {
			if len(recs) == 0 {
				return nil, fmt.Errorf("line %d: field %s before the first .I", n, line)
			}
			flush()
			field = line[1]
			continue
		}
		if field == 0 {
			if strings.TrimSpace(line) == "" {
				continue
			}
			return nil, fmt.Errorf("line %d: text outside a field", n)
		}
		text.WriteString(line)
		text.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	flush()
	return recs, nil
}

// seenField reports whether the last record already has field f, or is
// inside it: a marker that repeats a field is text of the current field.
func seenField(recs []record, cur, f byte) bool {
	if len(recs) == 0 {
		return false
	}
	_, done := recs[len(recs)-1].fields[f]
	return done || cur == f
}

// titleAndAbstract is a SMART document's text: its .T, a blank line, its
// .W (either may be missing).
func titleAndAbstract(r record) string {
	t, w := r.fields['T'], r.fields['W']
	switch {
	case t == "":
		return w + "\n"
	case w == "":
		return t + "\n"
	}
	return t + "\n\n" + w + "\n"
}
