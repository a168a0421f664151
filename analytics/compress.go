package analytics

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/segment"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/analytics/sequitur"
	"github.com/gpusearch/gpusearch/indexer"
	"github.com/gpusearch/gpusearch/internal/progress"
)

// CompressOptions control Compress. The zero value compresses with the
// indexer's analysis and defaults.
type CompressOptions struct {
	Raw         bool   // raw lowercase words instead of the indexer's analysis
	MaxDocBytes int64  // largest document read (default: the indexer's)
	Oversize    string // "truncate" (default) or "skip", as for the indexer
	Workers     int    // reading and analysis goroutines (default: every core)
	MaxDocs     int    // compress only the first MaxDocs documents in URL order (0: all)
	NoGzip      bool   // skip the gzip measurements (their fields stay 0)
	Progress    io.Writer
	Logger      *slog.Logger
}

// CompressReport says what Compress passed over.
type CompressReport struct {
	Walk       indexer.Report // the crawl walk's problems
	Unreadable int            // documents whose read failed, left out
	Truncated  int            // documents cut at MaxDocBytes
}

// Compress reads the crawl's documents in URL order (the indexer's docid
// order), turns each into words, and builds one grammar over the whole
// corpus, a file boundary after each document. Documents whose read fails
// are left out, as the indexer leaves them out.
func Compress(ctx context.Context, crawlDir string, opts CompressOptions) (*Corpus, CompressReport, error) {
	start := time.Now()
	var rep CompressReport
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	docs, walkRep, err := indexer.Documents(ctx, crawlDir, indexer.Options{
		Order: "url", MaxDocBytes: opts.MaxDocBytes, Oversize: opts.Oversize,
	})
	rep.Walk = walkRep
	if err != nil {
		return nil, rep, err
	}
	if opts.MaxDocs > 0 && len(docs) > opts.MaxDocs {
		docs = docs[:opts.MaxDocs]
	}
	opts.Logger.Info("walked crawl", "documents", len(docs))

	m := Meta{Analysis: AnalysisIndex, Order: "url"}
	if opts.Raw {
		m.Analysis = AnalysisRaw
	}
	var gzText, gzWords *gzipCounter
	if !opts.NoGzip {
		gzText, gzWords = newGzipCounter(), newGzipCounter()
	}
	b := NewBuilder()
	var seqTime time.Duration
	var lineBuf []byte
	var total int64
	for _, d := range docs {
		total += d.Size
	}
	prog := progress.Start(opts.Progress, "compressing", len(docs), total)
	err = analyzeAll(ctx, docs, opts, func(d analyzed) error {
		prog.Add(d.bytes)
		if d.err != nil {
			rep.Unreadable++
			opts.Logger.Warn("unreadable document left out", "url", docs[d.slot].URL, "err", d.err)
			return nil
		}
		if d.truncated {
			rep.Truncated++
		}
		m.InputBytes += d.bytes
		m.TextBytes += int64(len(d.text))
		t0 := time.Now()
		if err := b.AddDoc(docs[d.slot].URL, d.terms); err != nil {
			return err
		}
		seqTime += time.Since(t0)
		lineBuf = lineBuf[:0]
		for i, w := range d.terms {
			if i > 0 {
				lineBuf = append(lineBuf, ' ')
			}
			lineBuf = append(lineBuf, w...)
		}
		lineBuf = append(lineBuf, '\n')
		m.WordTextBytes += int64(len(lineBuf))
		if gzText != nil {
			gzText.Write(d.text)
			gzWords.Write(lineBuf)
		}
		return nil
	})
	prog.Stop()
	if err != nil {
		return nil, rep, err
	}
	if gzText != nil {
		m.GzipTextBytes, m.GzipWordBytes = gzText.Close(), gzWords.Close()
	}
	t0 := time.Now()
	c := b.Corpus(m)
	c.Meta.SequiturSecs = (seqTime + time.Since(t0)).Seconds()
	c.Meta.ElapsedSeconds = time.Since(start).Seconds()
	return c, rep, nil
}

// Builder makes a Corpus from documents given as words, one at a time.
type Builder struct {
	ids   map[string]uint32
	words []string // first-appearance id -> word
	seq   *sequitur.Builder
	urls  []string
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{ids: map[string]uint32{}, seq: sequitur.New()}
}

// AddDoc appends a document: its URL and its words.
func (b *Builder) AddDoc(url string, words []string) error {
	for _, w := range words {
		id, ok := b.ids[w]
		if !ok {
			if len(b.words) > sequitur.MaxWord {
				return fmt.Errorf("analytics: more than %d distinct words", sequitur.MaxWord+1)
			}
			id = uint32(len(b.words))
			b.ids[w] = id
			b.words = append(b.words, w)
		}
		b.seq.Add(id)
	}
	b.seq.EndFile()
	b.urls = append(b.urls, url)
	return nil
}

// Corpus returns the corpus of the documents added so far, its dictionary
// sorted, with m's measurements and the counts filled in.
func (b *Builder) Corpus(m Meta) *Corpus {
	g := b.seq.Grammar()
	dict, remap := sortDict(b.words)
	for i, s := range g.Body {
		if s&sequitur.RuleFlag == 0 {
			g.Body[i] = remap[s]
		}
	}
	for i, s := range g.Root {
		if s&sequitur.RuleFlag == 0 {
			g.Root[i] = remap[s]
		}
	}
	m.Format = FormatVersion
	if m.Analysis == "" {
		m.Analysis = AnalysisIndex
	}
	if m.Order == "" {
		m.Order = "url"
	}
	m.Documents, m.Words, m.Rules = len(b.urls), len(dict), g.NumRules()
	m.Tokens = b.seq.Words()
	m.GrammarSymbols = uint64(g.Size())
	return &Corpus{Meta: m, Dict: dict, URLs: slices.Clone(b.urls), Grammar: g}
}

// sortDict sorts the words and returns them with the map from
// first-appearance id to sorted id.
func sortDict(words []string) ([]string, []uint32) {
	order := make([]uint32, len(words))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(words[a], words[b]) })
	dict := make([]string, len(words))
	remap := make([]uint32, len(words))
	for rank, id := range order {
		dict[rank] = words[id]
		remap[id] = uint32(rank)
	}
	return dict, remap
}

// analyzed is one document's words, or why it could not be read.
type analyzed struct {
	slot      int
	text      []byte
	terms     []string
	bytes     int64
	truncated bool
	err       error
}

// analyzeAll reads and analyzes docs on several goroutines and calls
// collect for each, in order, from the calling goroutine. At most a window
// of documents is held between reading and collecting.
func analyzeAll(ctx context.Context, docs []indexer.Document, opts CompressOptions, collect func(analyzed) error) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	window := make(chan struct{}, 8*workers) // slots handed out and not yet collected
	jobs := make(chan int)
	results := make(chan analyzed, 8*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := analysis.New()
			for slot := range jobs {
				res := analyzeDoc(a, docs[slot], opts)
				res.slot = slot
				select {
				case results <- res:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range docs {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	pending := map[int]analyzed{}
	next := 0
	var err error
	for res := range results {
		if err != nil {
			continue
		}
		pending[res.slot] = res
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-window
			if err = ctx.Err(); err == nil {
				err = collect(r)
			}
			if err != nil {
				cancel()
				break
			}
		}
	}
	if err == nil && next < len(docs) {
		err = ctx.Err()
	}
	return err
}

func analyzeDoc(a *analysis.Analyzer, d indexer.Document, opts CompressOptions) analyzed {
	text, n, truncated, err := d.Text(opts.MaxDocBytes)
	res := analyzed{text: text, bytes: n, truncated: truncated, err: err}
	if err != nil {
		return res
	}
	if opts.Raw {
		res.terms = rawWords(text)
	} else {
		a.Analyze(text, func(t string) { res.terms = append(res.terms, t) })
	}
	return res
}

// rawWords returns the lowercased word segments of text (letters,
// numbers, ideographs, kana), as the analysis segments it, unstemmed.
func rawWords(text []byte) []string {
	var out []string
	for len(text) > 0 {
		vals, types, n, _ := segment.SegmentWordsDirect(text, nil, nil)
		for i, v := range vals {
			switch types[i] {
			case segment.Letter, segment.Number, segment.Ideo, segment.Kana:
				if len(v) <= analysis.MaxTokenLen {
					out = append(out, strings.ToLower(string(v)))
				}
			}
		}
		if n <= 0 {
			_, n = utf8.DecodeRune(text)
		}
		text = text[n:]
	}
	return out
}

// gzipCounter counts the bytes compress/gzip (default level) makes of
// what is written to it.
type gzipCounter struct {
	n  countWriter
	zw *gzip.Writer
}

type countWriter int64

// Write counts p.
func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

func newGzipCounter() *gzipCounter {
	g := &gzipCounter{}
	g.zw = gzip.NewWriter(&g.n)
	return g
}

// Write compresses p.
func (g *gzipCounter) Write(p []byte) { g.zw.Write(p) }

// Close flushes the stream and returns its size.
func (g *gzipCounter) Close() int64 {
	g.zw.Close()
	return int64(g.n)
}
