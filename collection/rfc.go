package collection

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpusearch/gpusearch/eval"
)

// rfcName matches the files ReadRFC uses: rfcN.txt, rfcN.txt.gz, rfcN.json.
var rfcName = regexp.MustCompile(`^rfc([0-9]+)\.(txt|txt\.gz|json)$`)

// rfcFiles are the files found for one RFC.
type rfcFiles struct{ text, meta string }

// ReadRFC reads an RFC tree as Debian's doc-rfc package installs it
// (usually /usr/share/doc/RFC) as a known-item collection.
func ReadRFC(dir string) (*Collection, error) {
	files := map[uint64]*rfcFiles{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		m := rfcName.FindStringSubmatch(d.Name())
		if m == nil || d.IsDir() {
			return nil
		}
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			return nil // a dangling or odd symlink
		}
		n, err := strconv.ParseUint(m[1], 10, 32)
		if err != nil {
			return nil
		}
		f := files[n]
		if f == nil {
			f = &rfcFiles{}
			files[n] = f
		}
		// WalkDir visits in lexical order: keep the first path.
		if m[2] == "json" {
			if f.meta == "" {
				f.meta = p
			}
		} else if f.text == "" {
			f.text = p
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("collection: rfc: %w", err)
	}
	nums := make([]uint64, 0, len(files))
	for n, f := range files {
		if f.text != "" {
			nums = append(nums, n)
		}
	}
	if len(nums) == 0 {
		return nil, fmt.Errorf("collection: rfc: no rfcN.txt or rfcN.txt.gz under %s (is doc-rfc installed?)", dir)
	}
	slices.Sort(nums)

	c := &Collection{Qrels: eval.Qrels{}}
	titles := make(map[uint64]string, len(nums))
	owners := map[string]int{} // normalised title -> RFCs that have it
	for _, n := range nums {
		f := files[n]
		title, err := rfcTitle(f)
		if err != nil {
			return nil, err
		}
		c.Docs = append(c.Docs, Doc{ID: "rfc" + strconv.FormatUint(n, 10), Path: f.text, Title: title})
		if title == "" {
			continue
		}
		titles[n] = title
		owners[strings.ToLower(title)]++
	}
	for _, n := range nums {
		title, ok := titles[n]
		if !ok || owners[strings.ToLower(title)] > 1 {
			continue
		}
		qid := strconv.FormatUint(n, 10)
		c.Queries = append(c.Queries, eval.Query{ID: qid, Text: title})
		c.Qrels.Add(qid, "rfc"+qid, 1)
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return c, nil
}

// rfcTitle returns an RFC's title with white space collapsed: from its
// JSON metadata when present, else from its text; "" if neither has one.
func rfcTitle(f *rfcFiles) (string, error) {
	if f.meta != "" {
		b, err := os.ReadFile(f.meta)
		if err != nil {
			return "", fmt.Errorf("collection: %w", err)
		}
		var meta struct {
			Title string `json:"title"`
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			return "", fmt.Errorf("collection: %s: %w", f.meta, err)
		}
		if t := collapse(meta.Title); t != "" {
			return t, nil
		}
	}
	r, err := openText(f.text)
	if err != nil {
		return "", err
	}
	defer r.Close()
	return titleFromText(r)
}

// titleFromText finds the title of an RFC's text: the first block of
// non-blank lines after the block that holds "Request for Comments",
// within the first 200 lines; at most three lines of it are joined.
func titleFromText(r io.Reader) (string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	const (
		findHeader = iota
		endHeader
		findTitle
		inTitle
	)
	state := findHeader
	var title []string
	for n := 0; n < 200 && sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		blank := line == ""
		switch state {
		case findHeader:
			if strings.Contains(strings.ToLower(line), "request for comments") {
				state = endHeader
			}
		case endHeader:
			if blank {
				state = findTitle
			}
		case findTitle:
			if !blank {
				title = append(title, line)
				state = inTitle
			}
		case inTitle:
			if blank || len(title) == 3 {
				return collapse(strings.Join(title, " ")), nil
			}
			title = append(title, line)
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("collection: reading RFC text: %w", err)
	}
	return collapse(strings.Join(title, " ")), nil
}

// collapse trims s and turns each run of white space into one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
