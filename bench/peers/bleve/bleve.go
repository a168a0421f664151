package bleve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/gpusearch/gpusearch/bench/peers/peer"
)

// Version is the bleve release this module requires.
const Version = "v2.5.7"

// BatchDocs is the number of documents a build batch holds.
const BatchDocs = 1000

// SegmentWait bounds the wait for obsolete segment files to go after a build.
const SegmentWait = 30 * time.Second

const (
	field        = "body"
	analyzerName = "gpusearch"
)

// Engine is bleve in-process.
type Engine struct {
	idx      blevesearch.Index
	analyzer analysis.Analyzer
	byName   map[string]int
}

// New returns the engine and sets bleve's process-wide BM25 parameters to
// k1 0.9, b 0.4.
func New() *Engine {
	search.BM25_k1 = 0.9
	search.BM25_b = 0.4
	return &Engine{}
}

// Name returns "bleve".
func (e *Engine) Name() string { return "bleve" }

// Info describes the engine.
func (e *Engine) Info() peer.Info {
	return peer.Info{
		Version:  Version + " (scorch)",
		Analysis: "unicode tokenizer (blevesearch/segment), to_lower, stemmer_en_snowball (Porter2), no stop words",
		Scoring:  "bleve bm25, k1 0.9 b 0.4: sqrt(tf), idf squared times queryNorm, coord on OR, float64",
	}
}

func newMapping() (*mapping.IndexMappingImpl, error) {
	im := blevesearch.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	err := im.AddCustomAnalyzer(analyzerName, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []any{lowercase.Name, en.SnowballStemmerName},
	})
	if err != nil {
		return nil, err
	}
	im.DefaultAnalyzer = analyzerName
	im.StoreDynamic, im.IndexDynamic, im.DocValuesDynamic = false, false, false
	fm := blevesearch.NewTextFieldMapping()
	fm.Analyzer = analyzerName
	fm.Store, fm.IncludeTermVectors, fm.IncludeInAll, fm.DocValues = false, false, false, false
	dm := blevesearch.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt(field, fm)
	im.DefaultMapping = dm
	return im, nil
}

// Index builds the index from the corpus's text files, timing the batches,
// the force merge and the close that persists them.
func (e *Engine) Index(ctx context.Context, c *peer.Corpus, dir string) (time.Duration, error) {
	im, err := newMapping()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	idx, err := blevesearch.New(dir, im)
	if err != nil {
		return 0, err
	}
	b := idx.NewBatch()
	for _, name := range c.Names {
		text, err := os.ReadFile(filepath.Join(c.TextDir, name))
		if err != nil {
			idx.Close()
			return 0, err
		}
		if err := b.Index(name, map[string]any{field: string(text)}); err != nil {
			idx.Close()
			return 0, err
		}
		if b.Size() >= BatchDocs {
			if err := idx.Batch(b); err != nil {
				idx.Close()
				return 0, err
			}
			b.Reset()
		}
	}
	if b.Size() > 0 {
		if err := idx.Batch(b); err != nil {
			idx.Close()
			return 0, err
		}
	}
	if err := forceMerge(ctx, idx); err != nil {
		idx.Close()
		return 0, err
	}
	if err := idx.Close(); err != nil {
		return 0, err
	}
	took := time.Since(start)

	if e.idx, err = blevesearch.Open(dir); err != nil {
		return 0, err
	}
	if err := awaitOneSegment(ctx, dir); err != nil {
		return 0, err
	}
	if n, err := e.idx.DocCount(); err != nil || int(n) != c.Len() {
		return 0, fmt.Errorf("bleve: index holds %d documents (%v), want %d", n, err, c.Len())
	}
	e.analyzer = e.idx.Mapping().AnalyzerNamed(analyzerName)
	if e.analyzer == nil {
		return 0, fmt.Errorf("bleve: analyzer %q missing after reopening", analyzerName)
	}
	e.byName = make(map[string]int, c.Len())
	for i, name := range c.Names {
		e.byName[name] = i
	}
	return took, nil
}

// forceMerge merges the persisted segments into one.
func forceMerge(ctx context.Context, idx blevesearch.Index) error {
	adv, err := idx.Advanced()
	if err != nil {
		return err
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return fmt.Errorf("bleve: index type %T, want scorch", adv)
	}
	return s.ForceMerge(ctx, nil)
}

// awaitOneSegment waits until scorch has deleted the segment files that the
// force merge made obsolete (it does so in the background once the index is
// open again), so that the index size is measured on the merged index alone;
// after SegmentWait it goes on regardless.
func awaitOneSegment(ctx context.Context, dir string) error {
	deadline := time.Now().Add(SegmentWait)
	for {
		zaps, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
		if err != nil || len(zaps) <= 1 || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// terms analyses text and merges duplicate terms, keeping their first order.
func (e *Engine) terms(text string) []string {
	var terms []string
	seen := make(map[string]bool)
	for _, tok := range e.analyzer.Analyze([]byte(text)) {
		t := string(tok.Term)
		if !seen[t] {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	return terms
}

func (e *Engine) answer(ctx context.Context, text, mode string, k int) (*blevesearch.SearchResult, error) {
	terms := e.terms(text)
	if len(terms) == 0 {
		return nil, nil
	}
	qs := make([]query.Query, len(terms))
	for i, t := range terms {
		tq := blevesearch.NewTermQuery(t)
		tq.SetField(field)
		qs[i] = tq
	}
	var q query.Query
	if mode == "and" {
		q = blevesearch.NewConjunctionQuery(qs...)
	} else {
		q = blevesearch.NewDisjunctionQuery(qs...)
	}
	return e.idx.SearchInContext(ctx, blevesearch.NewSearchRequestOptions(q, k, 0, false))
}

// Search answers the queries single-threaded (bleve's searchers run in the
// calling goroutine).
func (e *Engine) Search(ctx context.Context, queries []string, specs []peer.Spec, opts peer.SearchOptions) ([]peer.Run, error) {
	if e.idx == nil {
		return nil, fmt.Errorf("bleve: Search before Index")
	}
	for _, s := range specs {
		if s.Mode != "and" && s.Mode != "or" {
			return nil, fmt.Errorf("bleve: mode %q (want and or or)", s.Mode)
		}
	}
	answer := func(text string, s peer.Spec) (*blevesearch.SearchResult, error) {
		return e.answer(ctx, text, s.Mode, s.K)
	}
	return peer.Measure(queries, specs, opts, answer, e.hits)
}

// hits maps a result's first keep hits to corpus lines.
func (e *Engine) hits(res *blevesearch.SearchResult, keep int) ([]peer.Hit, error) {
	if res == nil {
		return nil, nil
	}
	var hs []peer.Hit
	for _, h := range res.Hits[:min(len(res.Hits), keep)] {
		doc, ok := e.byName[h.ID]
		if !ok {
			return nil, fmt.Errorf("bleve: hit %q is no document of the corpus", h.ID)
		}
		hs = append(hs, peer.Hit{Doc: doc, Score: h.Score})
	}
	return hs, nil
}

// Close closes the index.
func (e *Engine) Close() error {
	if e.idx == nil {
		return nil
	}
	err := e.idx.Close()
	e.idx = nil
	return err
}
