package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gpusearch/gpusearch/bench/peers/bleve"
	"github.com/gpusearch/gpusearch/bench/peers/lucene"
	"github.com/gpusearch/gpusearch/bench/peers/peer"
	"github.com/gpusearch/gpusearch/bench/peers/pisa"
	"github.com/gpusearch/gpusearch/bench/peers/xapian"
	"github.com/gpusearch/gpusearch/eval"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	var ue usageError
	switch {
	case err == nil:
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// options are the flags of a measurement.
type options struct {
	crawl, queries string
	ks, modes      string
	engines        string
	luceneAnalyzer string
	positions      bool
	store          string
	gpusearchAlgo  string
	gpusearchCodec string
	pisaBin        string
	pisaEncodings  string
	pisaIDF1Bin    string
	passages       int
	warmupQueries  int
	repeat, limit  int
	rounds         int
	work           string
	keepIndexes    bool
	trec           string
	asJSON         bool
	plot           string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "plot" {
		return runPlot(args[1:], stderr)
	}
	if len(args) > 0 && args[0] == "phrases" {
		return runPhrases(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "snippets" {
		return runSnippets(ctx, args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "rest" {
		return runREST(ctx, args[1:], stdout, stderr)
	}
	var o options
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.crawl, "crawl", "", "crawl directory (required)")
	fs.StringVar(&o.queries, "queries", "", "queries file, qid<TAB>text lines (required)")
	fs.StringVar(&o.ks, "k", "10,1000", "comma-separated result depths")
	fs.StringVar(&o.modes, "modes", "and,or", "comma-separated modes: and, or, phrase (each query one phrase; needs --positions and engines gpusearch and lucene only)")
	fs.StringVar(&o.engines, "engines", "gpusearch,lucene,xapian,bleve,pisa", "comma-separated engines; gpusearch always runs first")
	fs.StringVar(&o.gpusearchAlgo, "gpusearch-engine", "cpu", "gpusearch's CPU engine (query.New): cpu, daat, maxscore, wand, bmw, exhaustive, bitmap")
	fs.StringVar(&o.gpusearchCodec, "gpusearch-codec", "", "gpusearch's docid and frequency codec (default: the indexer's)")
	fs.StringVar(&o.pisaBin, "pisa-bin", os.Getenv("PISA_BIN"), "directory of PISA's tools, as bench/peers/pisa/build.sh builds them (default $PISA_BIN)")
	fs.StringVar(&o.pisaEncodings, "pisa-encodings", "block_simdbp,block_optpfor", "PISA index encodings, one engine each (pisa, pisa-optpfor, ...)")
	fs.StringVar(&o.pisaIDF1Bin, "pisa-idf1-bin", os.Getenv("PISA_IDF1_BIN"), "directory of the scoring tools of PISA built with gpusearch's idf (bench/peers/pisa/build.sh with PISA_IDF1=1), for engine pisa-idf1 (default $PISA_IDF1_BIN)")
	fs.IntVar(&o.passages, "passages", 0, "index passages of about N terms as documents, as gpusearch index --passages N cuts them (0: whole documents; not bleve)")
	fs.StringVar(&o.luceneAnalyzer, "lucene-analyzer", "porter2", "Lucene analyzer: porter2, english or standard")
	fs.BoolVar(&o.positions, "positions", false, "index positions (gpusearch's index.positions, Lucene's DOCS_AND_FREQS_AND_POSITIONS)")
	fs.StringVar(&o.store, "store", "none", "stored fields: none, titles or text (gpusearch's index.store; Lucene's stored title and body)")
	fs.IntVar(&o.warmupQueries, "warmup-queries", 20000, "untimed queries before each run's timed passes (whole passes over the queries, at least one)")
	fs.IntVar(&o.repeat, "repeat", 1, "timed passes over the queries in each run")
	fs.IntVar(&o.rounds, "rounds", 1, "rounds of searches after the indexing, every engine in turn in each; each run's figures take the passes of every round")
	fs.IntVar(&o.limit, "limit", 0, "use only the first N queries (0: all)")
	fs.StringVar(&o.work, "work", "", "work directory for the corpus and the indexes (default: a temporary one, removed)")
	fs.BoolVar(&o.keepIndexes, "keep-indexes", false, "leave the indexes in the work directory")
	fs.StringVar(&o.trec, "trec", "", "also write every run as a TREC run into this directory (hits kept k deep)")
	fs.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
	fs.StringVar(&o.plot, "plot", "", "write a PNG of the latencies to this file")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if o.crawl == "" || o.queries == "" || fs.NArg() > 0 {
		return usagef("usage: peers --crawl DIR --queries FILE [flags] (or: peers plot --out FILE REPORT.json...)")
	}
	specs, err := parseSpecs(o.modes, o.ks)
	if err != nil {
		return err
	}
	if err := checkFeatures(o, specs); err != nil {
		return err
	}
	qs, err := peer.ReadQueries(o.queries, o.limit)
	if err != nil {
		return err
	}
	work := o.work
	if work == "" {
		if work, err = os.MkdirTemp("", "peers-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if o.trec != "" {
		if err := os.MkdirAll(o.trec, 0o755); err != nil {
			return err
		}
	}
	engines, skipped, err := newEngines(ctx, o, stderr)
	if err != nil {
		return err
	}
	defer closeAll(engines) // Bench closes each engine it measures; this catches the rest on an error
	fmt.Fprintf(stderr, "extracting %s\n", o.crawl)
	corpus, err := peer.WriteCorpus(o.crawl, work, o.passages)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d documents (passages of %d terms; 0: whole), %d bytes of text, in %.1fs\n", corpus.Len(), o.passages, corpus.Bytes, corpus.Extract.Seconds())
	rep, err := peer.Bench(ctx, peer.Config{
		Crawl: o.crawl, QueriesFile: o.queries, Corpus: corpus, Queries: qs, Specs: specs,
		Warmup: max(1, (o.warmupQueries+len(qs)-1)/len(qs)), Repeat: max(o.repeat, 1), Rounds: max(o.rounds, 1), WorkDir: work, KeepIndexes: o.keepIndexes, TRECDir: o.trec, Progress: stderr,
	}, engines)
	if err != nil {
		return err
	}
	if len(skipped) > 0 {
		rep.Skipped = skipped
	}
	if o.plot != "" {
		if err := peer.Plot(o.plot, []*peer.Report{rep}); err != nil {
			return err
		}
	}
	if o.asJSON {
		return printJSON(stdout, rep)
	}
	return printReport(stdout, rep)
}

// parseSpecs makes one Spec for each mode and k.
func parseSpecs(modes, ks string) ([]peer.Spec, error) {
	var specs []peer.Spec
	for _, m := range strings.Split(modes, ",") {
		if m != "and" && m != "or" && m != "phrase" {
			return nil, usagef("--modes: %q is not and, or or phrase", m)
		}
		for _, s := range strings.Split(ks, ",") {
			k, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || k <= 0 {
				return nil, usagef("--k: %q is not a positive number", s)
			}
			specs = append(specs, peer.Spec{Mode: m, K: k})
		}
	}
	return specs, nil
}

// checkFeatures refuses what an engine could not do: phrase queries need
// positions, only gpusearch and Lucene index positions or store fields
// here, and bleve indexes whole documents only.
func checkFeatures(o options, specs []peer.Spec) error {
	if o.passages < 0 {
		return usagef("--passages: %d is negative", o.passages)
	}
	if o.passages > 0 && slices.Contains(strings.Split(o.engines, ","), "bleve") {
		return usagef("--passages: bleve reads whole documents here; leave it out of --engines")
	}
	if o.store != "none" && o.store != "titles" && o.store != "text" {
		return usagef("--store: %q is not none, titles or text", o.store)
	}
	phrase := slices.ContainsFunc(specs, func(s peer.Spec) bool { return s.Mode == "phrase" })
	if phrase && !o.positions {
		return usagef("--modes phrase needs --positions")
	}
	if !phrase && !o.positions && o.store == "none" {
		return nil
	}
	for _, name := range strings.Split(o.engines, ",") {
		if name != "gpusearch" && name != "lucene" {
			return usagef("%s stores no positions or fields here: with --positions, --store or --modes phrase use --engines gpusearch,lucene", name)
		}
	}
	return nil
}

// newEngines builds the engines named in o, gpusearch first; a peer that is
// not installed is skipped, with the reason.
func newEngines(ctx context.Context, o options, stderr io.Writer) ([]peer.Engine, map[string]string, error) {
	engines := []peer.Engine{&peer.GPUSearch{Engine: o.gpusearchAlgo, Codec: o.gpusearchCodec, Positions: o.positions, Store: o.store}}
	skipped := map[string]string{}
	names := strings.Split(o.engines, ",")
	pisaDone := false
	for _, name := range names {
		var e peer.Engine
		var err error
		switch name {
		case "gpusearch":
			continue
		case "lucene":
			e, err = lucene.New(ctx, lucene.Options{Analyzer: o.luceneAnalyzer, Positions: o.positions, Store: o.store})
		case "xapian":
			e, err = xapian.New(ctx)
		case "bleve":
			e = bleve.New()
		case "pisa", "pisa-idf1":
			// Both in one set: they share the forward and inverted index.
			if pisaDone {
				continue
			}
			pisaDone = true
			po := pisa.DefaultOptions(o.pisaBin)
			po.Encodings = nil
			if slices.Contains(names, "pisa") {
				po.Encodings = strings.Split(o.pisaEncodings, ",")
			}
			if slices.Contains(names, "pisa-idf1") {
				if err := pisa.CheckIDF1(o.pisaIDF1Bin); err != nil {
					fmt.Fprintf(stderr, "skipping pisa-idf1: %v\n", err)
					skipped[pisa.IDF1Name("block_simdbp")] = err.Error()
				} else {
					po.IDF1Bin, po.IDF1Encodings = o.pisaIDF1Bin, []string{"block_simdbp"}
				}
			}
			if len(po.Encodings)+len(po.IDF1Encodings) == 0 {
				continue
			}
			ps, err := pisa.New(po)
			if errors.Is(err, peer.ErrNotInstalled) {
				fmt.Fprintf(stderr, "skipping pisa: %v\n", err)
				for _, enc := range po.Encodings {
					skipped[pisa.EngineName(enc)] = err.Error()
				}
				for _, enc := range po.IDF1Encodings {
					skipped[pisa.IDF1Name(enc)] = err.Error()
				}
				continue
			}
			if err != nil {
				closeAll(engines)
				return nil, nil, err
			}
			for _, p := range ps {
				engines = append(engines, p)
			}
			continue
		default:
			closeAll(engines)
			return nil, nil, usagef("--engines: unknown engine %q (want gpusearch, lucene, xapian, bleve, pisa or pisa-idf1)", name)
		}
		switch {
		case errors.Is(err, peer.ErrNotInstalled):
			fmt.Fprintf(stderr, "skipping %s: %v\n", name, err)
			skipped[name] = err.Error()
		case err != nil:
			closeAll(engines)
			return nil, nil, err
		default:
			engines = append(engines, e)
		}
	}
	return engines, skipped, nil
}

func closeAll(engines []peer.Engine) {
	for _, e := range engines {
		e.Close()
	}
}

// printReport prints the report as a table.
func printReport(w io.Writer, rep *peer.Report) error {
	fmt.Fprintf(w, "%s: %d documents (%d bytes of text), %d queries; %s, %d cores; times in us\n",
		rep.Crawl, rep.Documents, rep.TextBytes, rep.Queries, rep.Machine.CPU, rep.Machine.Cores)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "engine\tindex s\tindex MB\tmode\tk\tcpu mean\tcpu p50\tcpu p99\twall mean\twall p50\tcpu x gpusearch\toverlap@10\t")
	for _, e := range rep.Engines {
		for _, r := range e.Runs {
			name := e.Name
			if r.Algorithm != "" {
				name += " (" + r.Algorithm + ")"
			}
			fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.2f\t%.3f\t\n",
				name, e.IndexSeconds, float64(e.IndexBytes)/1e6, r.Mode, r.K,
				r.CPUMeanUS, r.CPUP50US, r.CPUP99US, r.WallMeanUS, r.WallP50US, r.CPUVsGPUSearch, r.Overlap10)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(rep.Skipped)) {
		fmt.Fprintf(w, "%s skipped: %s\n", name, rep.Skipped[name])
	}
	return nil
}

// runPhrases prints phrases drawn from titles as a queries file, "pN<TAB>text"
// lines: the titles stored in a gpusearch index (--index, built with
// index.store titles or text) or the texts of a queries file (--titles; the
// RFCs' known-item queries are their titles).
func runPhrases(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("peers phrases", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("index", "", "gpusearch index whose stored titles to draw from")
	file := fs.String("titles", "", "queries file whose texts are the titles to draw from")
	n := fs.Int("n", 500, "phrases to draw")
	seed := fs.Uint64("seed", 1, "seed of the draw")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if (*dir == "") == (*file == "") || fs.NArg() > 0 {
		return usagef("usage: peers phrases (--index DIR | --titles FILE) [--n 500] [--seed 1]")
	}
	var titles []string
	var err error
	if *dir != "" {
		titles, err = storedTitles(*dir)
	} else {
		var qs []eval.Query
		qs, err = peer.ReadQueries(*file, 0)
		for _, q := range qs {
			titles = append(titles, q.Text)
		}
	}
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	for i, p := range peer.Phrases(titles, *n, *seed) {
		fmt.Fprintf(w, "p%d\t%s\n", i+1, p)
	}
	return w.Flush()
}

// storedTitles returns the titles an index stores, in docid order.
func storedTitles(dir string) ([]string, error) {
	ix, err := index.Open(dir)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	if ix.Store() == "none" {
		return nil, fmt.Errorf("%s stores no titles (index.store is none)", dir)
	}
	titles := make([]string, ix.NumDocs())
	for i := range titles {
		d, err := ix.Document(uint32(i), false)
		if err != nil {
			return nil, err
		}
		titles[i] = d.Title
	}
	return titles, nil
}

// passes are the flags runSnippets and runREST share: the queries and
// how they are timed.
type passes struct {
	file, mode             string
	k, warmup, repeat, lim int
}

// addFlags declares the passes' flags on fs.
func (p *passes) addFlags(fs *flag.FlagSet, kHelp string) {
	fs.StringVar(&p.file, "queries", "", "queries file, qid<TAB>text lines (required)")
	fs.StringVar(&p.mode, "mode", "and", "query mode: and, or or andor")
	fs.IntVar(&p.k, "k", 10, kHelp)
	fs.IntVar(&p.warmup, "warmup", 1, "untimed passes over the queries")
	fs.IntVar(&p.repeat, "repeat", 3, "timed passes over the queries")
	fs.IntVar(&p.lim, "limit", 0, "use only the first N queries (0: all)")
}

// texts reads the queries file's query texts.
func (p *passes) texts() ([]string, error) {
	qs, err := peer.ReadQueries(p.file, p.lim)
	if err != nil {
		return nil, err
	}
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.Text
	}
	return texts, nil
}

// printJSON prints v as one indented JSON document.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// runSnippets measures what snippets add to a request (peer.Snippets) and
// prints the report as JSON.
func runSnippets(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("peers snippets", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("index", "", "gpusearch index built with index.store: text (required)")
	workers := fs.Int("workers", 1, "goroutines making a request's snippets, as search.snippet_workers (0: one per core)")
	var p passes
	p.addFlags(fs, "hits per query, each with its snippet")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if *dir == "" || p.file == "" || fs.NArg() > 0 || p.k <= 0 {
		return usagef("usage: peers snippets --index DIR --queries FILE [--mode and] [--k 10] [--warmup 1] [--repeat 3] [--workers 1]")
	}
	m, err := query.ParseMode(p.mode)
	if err != nil {
		return usageError{err}
	}
	texts, err := p.texts()
	if err != nil {
		return err
	}
	rep, err := peer.Snippets(ctx, *dir, texts, m, p.k, p.warmup, p.repeat, *workers)
	if err != nil {
		return err
	}
	return printJSON(stdout, rep)
}

// runREST measures a running server's /search with and without snippets
// (peer.REST) and prints the report as JSON.
func runREST(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("peers rest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "", "the server, HOST:PORT (serve with server.cache_entries: 0) (required)")
	var p passes
	p.addFlags(fs, "hits per query")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if *addr == "" || p.file == "" || fs.NArg() > 0 || p.k <= 0 {
		return usagef("usage: peers rest --addr HOST:PORT --queries FILE [--mode and] [--k 10] [--warmup 1] [--repeat 3]")
	}
	if _, err := query.ParseMode(p.mode); err != nil {
		return usageError{err}
	}
	texts, err := p.texts()
	if err != nil {
		return err
	}
	rep, err := peer.REST(ctx, *addr, texts, p.mode, p.k, p.warmup, p.repeat)
	if err != nil {
		return err
	}
	return printJSON(stdout, rep)
}

// runPlot draws saved reports.
func runPlot(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("peers plot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "PNG file to write (required)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if *out == "" || fs.NArg() == 0 {
		return usagef("usage: peers plot --out FILE REPORT.json...")
	}
	var reps []*peer.Report
	for _, path := range fs.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rep := new(peer.Report)
		if err := json.Unmarshal(data, rep); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		reps = append(reps, rep)
	}
	return peer.Plot(*out, reps)
}
