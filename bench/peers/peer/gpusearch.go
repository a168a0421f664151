package peer

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gpusearch/gpusearch/analysis"
	_ "github.com/gpusearch/gpusearch/codecplugins/all" // the codecs an index may name
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/query"
)

// GPUSearch is gpusearch itself, in-process: indexer.Build with one parsing
// worker and the default codecs (or Codec), and query.New(ix, Engine) for
// every mode. A phrase run sends each query's text in double quotes, one
// phrase, in AND mode; and and or runs drop the quotes a query holds.
type GPUSearch struct {
	Engine    string // query engine name for query.New; "cpu" when empty
	Codec     string // docid and frequency codec; the indexer's default when empty
	Positions bool   // index.positions
	Store     string // index.store: "none" when empty, "titles" or "text"

	ix  *index.Index
	eng query.Engine
}

// Name returns "gpusearch".
func (g *GPUSearch) Name() string { return "gpusearch" }

// Info describes the engine.
func (g *GPUSearch) Info() Info {
	return Info{
		Version:  "engine " + g.engine(),
		Analysis: "UAX #29 words (blevesearch/segment), lowercase, Porter2 (kljensen/snowball), no stop words",
		Scoring:  "BM25 k1=0.9 b=0.4, idf ln(1+(N-df+0.5)/(df+0.5)), exact lengths, float32",
	}
}

func (g *GPUSearch) engine() string {
	if g.Engine == "" {
		return "cpu"
	}
	return g.Engine
}

// Index builds the index of c.TextDir in dir, cut into c.Passages-term
// passages when that is positive, and checks that docid i is corpus line
// i.
func (g *GPUSearch) Index(ctx context.Context, c *Corpus, dir string) (time.Duration, error) {
	start := time.Now()
	store := g.Store
	if store == "" {
		store = index.StoreNone
	}
	opts := indexer.Options{Workers: 1, DocIDCodec: g.Codec, FreqCodec: g.Codec, Store: store, Positions: g.Positions, Passages: c.Passages}
	if _, err := indexer.Build(ctx, c.TextDir, dir, opts); err != nil {
		return 0, err
	}
	took := time.Since(start)
	// As gpusearch serve opens it by default (server.index_memory: auto).
	ix, err := index.OpenWith(dir, index.AutoMemory)
	if err != nil {
		return 0, err
	}
	if ix.NumDocs() != c.Len() {
		ix.Close()
		return 0, fmt.Errorf("peer: gpusearch indexed %d documents, want %d", ix.NumDocs(), c.Len())
	}
	for i, name := range c.Names {
		if got := ix.URL(uint32(i)); got != name {
			ix.Close()
			return 0, fmt.Errorf("peer: gpusearch docid %d is %s, want %s", i, got, name)
		}
	}
	eng, err := query.New(ix, g.engine())
	if err != nil {
		ix.Close()
		return 0, err
	}
	g.ix, g.eng = ix, eng
	return took, nil
}

// Search answers the queries with the engine; a query's time covers
// query.Parse and Engine.Search.
func (g *GPUSearch) Search(ctx context.Context, queries []string, specs []Spec, opts SearchOptions) ([]Run, error) {
	if g.eng == nil {
		return nil, fmt.Errorf("peer: gpusearch: Search before Index")
	}
	for _, s := range specs {
		if _, err := query.ParseMode(s.Mode); err != nil && s.Mode != "phrase" {
			return nil, err
		}
	}
	a := analysis.New()
	answer := func(text string, s Spec) (query.Result, error) {
		mode := query.Mode(s.Mode)
		if s.Mode == "phrase" {
			text, mode = `"`+text+`"`, query.And
		} else {
			text = unquote(text)
		}
		q, err := query.Parse(a, text, mode, s.K)
		if err != nil {
			return query.Result{}, err
		}
		return g.eng.Search(ctx, q)
	}
	hits := func(res query.Result, keep int) ([]Hit, error) {
		n := min(len(res.Hits), keep)
		hs := make([]Hit, n)
		for i, h := range res.Hits[:n] {
			hs[i] = Hit{Doc: int(h.DocID), Score: float64(h.Score)}
		}
		return hs, nil
	}
	return Measure(queries, specs, opts, answer, hits)
}

// unquote turns double quotes into spaces: and and or runs are bags of
// terms in every engine, and the peers' analyzers drop quotes, where
// gpusearch reads a quoted part as a phrase (87 of the RFCs' titles hold
// quotes).
func unquote(text string) string { return strings.ReplaceAll(text, `"`, " ") }

// Close closes the index.
func (g *GPUSearch) Close() error {
	if g.ix == nil {
		return nil
	}
	err := g.ix.Close()
	g.ix, g.eng = nil, nil
	return err
}
