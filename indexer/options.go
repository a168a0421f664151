package indexer

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/gpusearch/gpusearch/codecplugins"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/index/bm25"
)

// Options control a build. The zero value of a field means its default.
type Options struct {
	DocIDCodec   string // docid codec name (default "fastpfor")
	FreqCodec    string // frequency codec name (default "fastpfor")
	Order        string // "url" (default), "crawl" or "random"
	Seed         uint64 // seed of the random order
	Workers      int    // parsing goroutines (default: every core)
	MemoryBudget int64  // bytes of postings held before a run is flushed (default 512 MiB)
	MaxDocBytes  int64  // largest document read (default 4 MiB)
	Oversize     string // "truncate" (default) or "skip" for larger files
	TempDir      string // scratch directory for runs (default: inside the output directory)
	Force        bool   // replace an index even with one of fewer than half its documents
	Passages     int    // split each document into passages of about this many terms, each a document (0: off)
	// Positions keeps each posting's token positions (positions.bin), for
	// phrase queries, encoded with PositionsCodec (default: DocIDCodec).
	Positions      bool
	PositionsCodec string
	Store          string      // what the document store keeps: "none", "titles" or "text" (default; titles in passage mode)
	BM25           bm25.Params // scoring parameters of the stored bounds (default k1=0.9, b=0.4)
	// TitleWeight, w in 0..bm25.MaxTitleWeight, scores each document's title
	// as a second field, BM25F-style at index time: a term's frequency
	// is its body's plus w times its title's, a document's length its
	// body's plus w times its title's (0: plain BM25 over the body).
	// It needs Positions off and no Passages.
	TitleWeight int
	Progress    io.Writer // progress lines; nil for quiet
	Logger      *slog.Logger
	Merge       MergePolicy // when an update merges segments (merge.go)
}

func (o Options) withDefaults() Options {
	if o.DocIDCodec == "" {
		o.DocIDCodec = "fastpfor"
	}
	if o.FreqCodec == "" {
		o.FreqCodec = "fastpfor"
	}
	if o.Order == "" {
		o.Order = "url"
	}
	if o.MemoryBudget <= 0 {
		o.MemoryBudget = 512 << 20
	}
	if o.MaxDocBytes <= 0 {
		o.MaxDocBytes = 4 << 20
	}
	if o.Store == "" {
		o.Store = index.StoreText
	}
	if o.Oversize == "" {
		o.Oversize = "truncate"
	}
	if o.BM25 == (bm25.Params{}) {
		o.BM25 = bm25.DefaultParams()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Merge = o.Merge.withDefaults()
	return o
}

// validate checks the options that name things before any work is done,
// a bad codec name included, so that no parse is spent on them.
func (o Options) validate() error {
	switch o.Order {
	case "url", "crawl", "random":
	default:
		return fmt.Errorf("indexer: unknown docid order %q (want url, crawl or random)", o.Order)
	}
	switch o.Oversize {
	case "truncate", "skip":
	default:
		return fmt.Errorf("indexer: unknown oversize policy %q (want truncate or skip)", o.Oversize)
	}
	if o.Passages < 0 {
		return fmt.Errorf("indexer: passage size %d is negative", o.Passages)
	}
	if err := checkTitleWeight(o); err != nil {
		return err
	}
	if err := index.CheckStore(o.Store); err != nil {
		return fmt.Errorf("indexer: %w", err)
	}
	for _, name := range []string{o.DocIDCodec, o.FreqCodec, o.PositionsCodec} {
		if _, err := codecplugins.Lookup(name); name != "" && err != nil {
			return fmt.Errorf("indexer: %w", err)
		}
	}
	return nil
}

// checkTitleWeight checks a title weight and what it needs.
func checkTitleWeight(o Options) error {
	switch w := o.TitleWeight; {
	case w < 0 || w > bm25.MaxTitleWeight:
		return fmt.Errorf("indexer: title weight %d out of range (want an integer from 0 to %d)", w, bm25.MaxTitleWeight)
	case w == 0:
		return nil
	case o.Positions:
		return fmt.Errorf("indexer: title weight %d needs an index without positions (index.positions: false): positions are the body's, the frequencies also count the title", w)
	case o.Passages > 0:
		return fmt.Errorf("indexer: title weight %d does not combine with passages", w)
	}
	return nil
}
