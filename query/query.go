package query

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/index"
)

// Mode is how a query's terms combine.
type Mode string

// The query modes.
const (
	And   Mode = "and"
	Or    Mode = "or"
	AndOr Mode = "andor"
)

// ParseMode checks a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case And, Or, AndOr:
		return m, nil
	}
	return "", fmt.Errorf("query: unknown mode %q (want and, or or andor)", s)
}

// Query is an analyzed query.
type Query struct {
	Terms []string // analyzed, distinct, in first-occurrence order; phrases' included
	// Phrases are the quoted phrases of two terms or more, distinct, each
	// its analyzed terms in order. They constrain which documents match
	// (see Matches); scores stay BM25 over Terms.
	Phrases [][]string
	Mode    Mode
	K       int
}

// ErrUnbalancedQuotes is wrapped by Parse's error for a query text with
// an odd number of double quotes.
var ErrUnbalancedQuotes = errors.New("unbalanced double quote")

// ErrPhraseUnsupported is wrapped by the error of an engine that cannot
// answer queries with phrases (the GPU engine); the scheduler sends them
// to the CPU.
var ErrPhraseUnsupported = errors.New("phrase queries are not supported by this engine")

// ParseAll parses each of texts as Parse does, in order; the first error
// stops it.
func ParseAll(a *analysis.Analyzer, texts []string, mode Mode, k int) ([]Query, error) {
	qs := make([]Query, len(texts))
	for i, text := range texts {
		var err error
		if qs[i], err = Parse(a, text, mode, k); err != nil {
			return nil, err
		}
	}
	return qs, nil
}

// Parse analyzes text with the indexing analysis and merges duplicate
// terms. Text between double quotes is a phrase: its terms, in order, must
// stand side by side in a document; a phrase of one term is that term. A
// text with an odd number of double quotes is refused with an error
// wrapping ErrUnbalancedQuotes.
func Parse(a *analysis.Analyzer, text string, mode Mode, k int) (Query, error) {
	q := Query{Mode: mode, K: k}
	parts := strings.Split(text, `"`)
	if len(parts)%2 == 0 {
		return Query{}, fmt.Errorf("query: %w: quote a phrase between two", ErrUnbalancedQuotes)
	}
	// A query's terms are few: a scan of those kept finds a duplicate
	// sooner than a map, which would cost allocations on every query
	// (Parse is timed with the engines); past seenScan terms a map does.
	var seen map[string]bool
	for i, part := range parts {
		quoted := i%2 == 1
		var terms []string // a phrase's, in order
		a.Analyze([]byte(part), func(t string) {
			if quoted {
				terms = append(terms, t)
			}
			if seen == nil && len(q.Terms) == seenScan {
				seen = make(map[string]bool, 2*seenScan)
				for _, u := range q.Terms {
					seen[u] = true
				}
			}
			if seen != nil {
				if seen[t] {
					return
				}
				seen[t] = true
			} else if slices.Contains(q.Terms, t) {
				return
			}
			if q.Terms == nil {
				q.Terms = make([]string, 0, 8) // one allocation for most queries
			}
			q.Terms = append(q.Terms, t)
		})
		if len(terms) > 1 && !slices.ContainsFunc(q.Phrases, func(p []string) bool { return slices.Equal(p, terms) }) {
			q.Phrases = append(q.Phrases, terms)
		}
	}
	return q, nil
}

// seenScan is how many distinct terms Parse checks a new one against by a
// scan before it keeps them in a map.
const seenScan = 16

// Hit is one result.
type Hit struct {
	DocID uint32  `json:"docid"`
	Score float32 `json:"score"`
}

// Stats describe the work a query took.
type Stats struct {
	Algorithm      string        `json:"algorithm"`       // which algorithm answered
	PostingsScored int64         `json:"postings_scored"` // term scores computed
	BlocksDecoded  int64         `json:"blocks_decoded"`  // docid blocks decoded
	BlocksSkipped  int64         `json:"blocks_skipped"`  // blocks jumped over without decoding
	Took           time.Duration `json:"took_ns"`
}

// Result is an engine's answer.
type Result struct {
	Hits  []Hit
	Stats Stats
}

// Engine answers queries over one index. Engines are safe for concurrent
// use; a cancelled context stops a search promptly with ctx.Err().
type Engine interface {
	Search(ctx context.Context, q Query) (Result, error)
}

// BatchEngine is an Engine that answers several queries together faster
// than one at a time (the GPU engine: their launch sequences back to back,
// one synchronization). Results are in the order of qs, each as Search
// would answer it; Stats.Took may be the whole batch's time.
type BatchEngine interface {
	Engine
	SearchBatch(ctx context.Context, qs []Query) ([]Result, error)
}

// term is a query term resolved against the index.
type term struct {
	info index.TermInfo
	idf  float32
}

// resolve looks the query's terms up. For AND, found is false when a term
// is missing (the answer is empty); OR drops missing terms.
func resolve(ix *index.Index, terms []string) (out []term, allFound bool) {
	return resolveInto(make([]term, 0, len(terms)), ix, terms)
}

// resolveInto is resolve appending to out, whose memory a caller that
// keeps it from one query to the next reuses.
func resolveInto(out []term, ix *index.Index, terms []string) ([]term, bool) {
	n := len(out)
	ix.LookupAll(terms, func(_ int, info index.TermInfo) {
		out = append(out, term{info: info, idf: ix.IDF(info)})
	})
	return out, len(out)-n == len(terms)
}

// checkEvery is how many postings an engine processes between context checks.
const checkEvery = 1 << 14
