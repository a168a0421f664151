package indexer

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// maxNamed is how many file names a report keeps per problem.
const maxNamed = 5

// Problem counts files that had one kind of trouble and names the first
// maxNamed of them.
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

// String gives the count and the names kept, and how many more there
// are: "7 (a, b, c, d, e and 2 more)".
func (p Problem) String() string {
	if len(p.First) == 0 {
		return fmt.Sprint(p.Count)
	}
	s := fmt.Sprintf("%d (%s", p.Count, strings.Join(p.First, ", "))
	if more := p.Count - len(p.First); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s + ")"
}

// Report summarises a build.
type Report struct {
	Documents      int           `json:"documents"`
	InputBytes     int64         `json:"input_bytes"`
	Terms          int           `json:"terms"`
	Postings       uint64        `json:"postings"`
	Runs           int           `json:"runs"`
	Unsupported    Problem       `json:"unsupported"`     // not HTML, text or markdown, or not a regular file
	Unreadable     Problem       `json:"unreadable"`      // open or read failed
	Changed        Problem       `json:"changed"`         // no longer the regular file the walk listed when read
	Oversize       Problem       `json:"oversize"`        // larger than the maximum: truncated or skipped
	UnsafeSymlinks Problem       `json:"unsafe_symlinks"` // links leading outside the crawl, or to directories
	Hidden         Problem       `json:"hidden"`          // names starting with a dot: never crawled
	Elapsed        time.Duration `json:"elapsed_ns"`
}

// unreadable records a file that could not be read: under Changed when it
// is no longer the file the walk listed, else under Unreadable.
func (r *Report) unreadable(name string, err error) {
	if errors.Is(err, ErrChanged) {
		r.Changed.add(name, err)
	} else {
		r.Unreadable.add(name, err)
	}
}

// Skip is one kind of file a build left out or cut: a description of
// what happened to them, and how many and which.
type Skip struct {
	What string
	Problem
}

// Skipped lists every kind of file the report counts besides documents,
// each with its description, in a fixed order.
func (r Report) Skipped() []Skip {
	return []Skip{
		{"unsupported files skipped (not HTML, text or markdown, or not a regular file)", r.Unsupported},
		{"unreadable files skipped", r.Unreadable},
		{"files skipped because they changed after the walk", r.Changed},
		{"oversized files (truncated, or skipped by index.oversize)", r.Oversize},
		{"symlinks not followed (leading outside the crawl, or not to a regular file)", r.UnsafeSymlinks},
		{"hidden files and directories skipped (names starting with a dot)", r.Hidden},
	}
}
