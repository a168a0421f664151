package peer

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNotInstalled is what an engine's constructor returns, wrapped with the
// reason, when the engine is not installed on this machine.
var ErrNotInstalled = errors.New("not installed")

// Spec is one timed run: every query in one mode ("and" or "or") to depth K.
type Spec struct {
	Mode string `json:"mode"`
	K    int    `json:"k"`
}

func (s Spec) String() string { return fmt.Sprintf("%s:%d", s.Mode, s.K) }

// Hit is one ranked result: the document's corpus line and its score.
type Hit struct {
	Doc   int
	Score float64
}

// Run is an engine's answer to one Spec: each query's wall-clock and thread
// CPU time, pass by pass (SearchOptions.Repeat times the number of queries),
// and each query's first hits (at most SearchOptions.Keep), in query order.
// Algorithm names the engine's query algorithm where the engine picked one
// per run (PISA's fastest of several); empty otherwise.
type Run struct {
	Spec      Spec
	Wall      []time.Duration
	CPU       []time.Duration
	Hits      [][]Hit
	Algorithm string
}

// SearchOptions say how Search runs the queries.
type SearchOptions struct {
	Warmup int // untimed passes over the queries before the timed ones
	Repeat int // timed passes (at least 1)
	Keep   int // hits kept per query (10 for overlap@10; k for TREC runs)
}

// Info describes an engine as measured.
type Info struct {
	Version  string `json:"version"`
	Analysis string `json:"analysis"`
	Scoring  string `json:"scoring"`
}

// Engine is one search engine under measurement. Index builds the index of
// the corpus in dir, an empty directory, and returns the build time as the
// engine measured it; Search answers queries over that index, single-threaded.
// Info is complete once Index has returned. Close releases what the engine
// holds (index, temporary files); calling it again does nothing.
type Engine interface {
	Name() string
	Info() Info
	Index(ctx context.Context, c *Corpus, dir string) (time.Duration, error)
	Search(ctx context.Context, queries []string, specs []Spec, opts SearchOptions) ([]Run, error)
	Close() error
}
