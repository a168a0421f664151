package peer

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gpusearch/gpusearch/eval"
)

// Config is one side-by-side measurement.
type Config struct {
	Crawl       string       // crawl directory, for the report
	QueriesFile string       // queries file, for the report
	Corpus      *Corpus      // the crawl's extracted text (WriteCorpus)
	Queries     []eval.Query // the queries, answered in this order
	Specs       []Spec       // the runs, each for every engine
	Warmup      int          // untimed passes over the queries before each round's timed ones
	Repeat      int          // timed passes a round (at least 1)
	Rounds      int          // rounds of searches, every engine in turn in each (at least 1)
	WorkDir     string       // each engine's index goes to WorkDir/index-NAME
	KeepIndexes bool         // leave the indexes behind instead of removing them
	TRECDir     string       // when set, every run is also written there as NAME.MODE.K.run, k deep
	Progress    io.Writer    // progress lines; nil for quiet
}

// Bench indexes the corpus with each engine in turn, then answers every
// Spec with every engine in turn, Rounds times, and reports the figures:
// each engine's passes of all rounds together. Rounds spread each
// engine's passes over the whole measurement, so that a slow spell of a
// shared machine does not fall on one engine alone. engines[0] is the
// reference for overlap@10 and the latency ratios, and must be gpusearch.
// The engines are closed on the way out.
func Bench(ctx context.Context, cfg Config, engines []Engine) (rep *Report, err error) {
	if len(engines) == 0 || engines[0].Name() != "gpusearch" {
		return nil, fmt.Errorf("peer: the first engine must be gpusearch")
	}
	if len(cfg.Specs) == 0 {
		return nil, fmt.Errorf("peer: no run to measure")
	}
	defer func() {
		for _, e := range engines {
			if cerr := e.Close(); err == nil && cerr != nil {
				rep, err = nil, cerr
			}
			if !cfg.KeepIndexes {
				os.RemoveAll(filepath.Join(cfg.WorkDir, "index-"+e.Name()))
			}
		}
	}()
	rep = &Report{
		Crawl:          cfg.Crawl,
		QueriesFile:    cfg.QueriesFile,
		Queries:        len(cfg.Queries),
		Documents:      cfg.Corpus.Len(),
		TextBytes:      cfg.Corpus.Bytes,
		ExtractSeconds: cfg.Corpus.Extract.Seconds(),
		Warmup:         cfg.Warmup,
		Repeat:         max(cfg.Repeat, 1),
		Rounds:         max(cfg.Rounds, 1),
		Machine:        ThisMachine(),
	}
	texts := queryTexts(cfg.Queries)
	keep := 10
	if cfg.TRECDir != "" {
		for _, s := range cfg.Specs {
			keep = max(keep, s.K)
		}
	}
	for _, e := range engines {
		er, err := build(ctx, cfg, e)
		if err != nil {
			return nil, err
		}
		rep.Engines = append(rep.Engines, er)
	}
	runs := make([][]Run, len(engines))
	for round := range rep.Rounds {
		for i, e := range engines {
			rs, err := search(ctx, cfg, e, texts, keep, round)
			if err != nil {
				return nil, err
			}
			runs[i] = appendRound(runs[i], rs)
		}
	}
	for i := range engines {
		for _, r := range runs[i] {
			rep.Engines[i].Runs = append(rep.Engines[i].Runs, summarize(r, rep.Rounds))
		}
	}
	ref := rep.Engines[0].Runs
	for i, e := range engines {
		for j, r := range runs[i] {
			er := &rep.Engines[i].Runs[j]
			er.Overlap10, er.OverlapQueries = overlap10(r.Hits, runs[0][j].Hits)
			if ref[j].CPUMeanUS > 0 {
				er.CPUVsGPUSearch = er.CPUMeanUS / ref[j].CPUMeanUS
			}
			if ref[j].WallMeanUS > 0 {
				er.WallVsGPUSearch = er.WallMeanUS / ref[j].WallMeanUS
			}
			if cfg.TRECDir != "" {
				path := filepath.Join(cfg.TRECDir, fmt.Sprintf("%s.%s.%d.run", e.Name(), r.Spec.Mode, r.Spec.K))
				if err := writeTREC(path, cfg.Queries, r.Hits, cfg.Corpus.DocNos, e.Name()); err != nil {
					return nil, err
				}
			}
		}
	}
	return rep, nil
}

// build builds one engine's index, to be searched by search.
func build(ctx context.Context, cfg Config, e Engine) (EngineReport, error) {
	er := EngineReport{Name: e.Name()}
	dir := filepath.Join(cfg.WorkDir, "index-"+e.Name())
	if err := os.RemoveAll(dir); err != nil {
		return er, err
	}
	progress(cfg.Progress, "%s: indexing %d documents", e.Name(), cfg.Corpus.Len())
	took, err := e.Index(ctx, cfg.Corpus, dir)
	if err != nil {
		return er, err
	}
	er.Info = e.Info()
	er.IndexSeconds = took.Seconds()
	if er.IndexBytes, err = dirSize(dir); err != nil {
		return er, err
	}
	progress(cfg.Progress, "%s: indexed in %.2fs, %d bytes", e.Name(), er.IndexSeconds, er.IndexBytes)
	return er, nil
}

// search answers every Spec with one engine, one round's passes.
func search(ctx context.Context, cfg Config, e Engine, texts []string, keep, round int) ([]Run, error) {
	runtime.GC()
	start := time.Now()
	runs, err := e.Search(ctx, texts, cfg.Specs, SearchOptions{Warmup: cfg.Warmup, Repeat: cfg.Repeat, Keep: keep})
	if err != nil {
		return nil, err
	}
	if len(runs) != len(cfg.Specs) {
		return nil, fmt.Errorf("peer: %s answered %d runs, want %d", e.Name(), len(runs), len(cfg.Specs))
	}
	for i, r := range runs {
		if r.Spec != cfg.Specs[i] || len(r.Wall) != max(cfg.Repeat, 1)*len(texts) || len(r.CPU) != len(r.Wall) || len(r.Hits) != len(texts) {
			return nil, fmt.Errorf("peer: %s run %d does not match %s over %d queries", e.Name(), i, cfg.Specs[i], len(texts))
		}
	}
	var means []string // as RunReport.RoundBestWallMeanUS
	for _, r := range runs {
		means = append(means, fmt.Sprintf("%s %.1f us", r.Spec, roundMeans(r.Wall, len(texts), 1)[0]))
	}
	progress(cfg.Progress, "%s: round %d: %d queries x %d runs in %v (%s)", e.Name(), round+1, len(texts), len(runs),
		time.Since(start).Round(time.Millisecond), strings.Join(means, ", "))
	return runs, nil
}

// appendRound adds a round's runs to the rounds before (nil for none),
// run by run: its passes follow theirs, and its hits and algorithm
// replace theirs (an algorithm that differs from an earlier round's is
// named after it).
func appendRound(before, round []Run) []Run {
	if before == nil {
		return round
	}
	for i, r := range round {
		b := &before[i]
		b.Wall = append(b.Wall, r.Wall...)
		b.CPU = append(b.CPU, r.CPU...)
		b.Hits = r.Hits
		if r.Algorithm != "" && !slices.Contains(strings.Split(b.Algorithm, "/"), r.Algorithm) {
			b.Algorithm += "/" + r.Algorithm
		}
	}
	return before
}

// dirSize returns the total size of the regular files under dir.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return n, err
}

func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}
