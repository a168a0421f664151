package indexer

import (
	"fmt"
	"time"
)

// maxNamed is how many file names a report keeps per problem.
const maxNamed = 5

// Problem counts files that had one kind of trouble and names the first few.
type Problem struct {
	Count int      `json:"count"`
	First []string `json:"first,omitempty"`
}

func (p *Problem) add(name string, err error) {
	p.Count++
	if len(p.First) < maxNamed {
		if err != nil {
			name = fmt.Sprintf("%s (%v)", name, err)
		}
		p.First = append(p.First, name)
	}
}

// Report summarises a build.
type Report struct {
	Documents      int           `json:"documents"`
	InputBytes     int64         `json:"input_bytes"`
	Terms          int           `json:"terms"`
	Postings       uint64        `json:"postings"`
	Runs           int           `json:"runs"`
	Unsupported    Problem       `json:"unsupported"`     // not HTML, text or markdown
	Unreadable     Problem       `json:"unreadable"`      // open or read failed
	Oversize       Problem       `json:"oversize"`        // larger than the maximum: truncated or skipped
	UnsafeSymlinks Problem       `json:"unsafe_symlinks"` // links leading outside the crawl, or to directories
	Elapsed        time.Duration `json:"elapsed_ns"`
}
