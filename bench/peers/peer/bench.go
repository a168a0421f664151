package peer

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
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
	Warmup      int          // untimed passes over the queries before the timed ones
	Repeat      int          // timed passes (at least 1)
	WorkDir     string       // each engine's index goes to WorkDir/index-NAME
	KeepIndexes bool         // leave the indexes behind instead of removing them
	TRECDir     string       // when set, every run is also written there as NAME.MODE.K.run, k deep
	Progress    io.Writer    // progress lines; nil for quiet
}

// Bench indexes the corpus with each engine in turn, answers every Spec and
// reports the figures. engines[0] is the reference for overlap@10 and the
// latency ratios, and must be gpusearch. Each engine is closed once measured.
func Bench(ctx context.Context, cfg Config, engines []Engine) (*Report, error) {
	if len(engines) == 0 || engines[0].Name() != "gpusearch" {
		return nil, fmt.Errorf("peer: the first engine must be gpusearch")
	}
	if len(cfg.Specs) == 0 {
		return nil, fmt.Errorf("peer: no run to measure")
	}
	rep := &Report{
		Crawl:          cfg.Crawl,
		QueriesFile:    cfg.QueriesFile,
		Queries:        len(cfg.Queries),
		Documents:      cfg.Corpus.Len(),
		TextBytes:      cfg.Corpus.Bytes,
		ExtractSeconds: cfg.Corpus.Extract.Seconds(),
		Warmup:         cfg.Warmup,
		Repeat:         max(cfg.Repeat, 1),
		Machine:        ThisMachine(),
	}
	texts := queryTexts(cfg.Queries)
	keep := 10
	if cfg.TRECDir != "" {
		for _, s := range cfg.Specs {
			keep = max(keep, s.K)
		}
	}
	var ref []Run
	var refReport []RunReport
	for _, e := range engines {
		er, runs, err := measure(ctx, cfg, e, texts, keep)
		if cerr := e.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		if ref == nil {
			ref, refReport = runs, er.Runs
		}
		for i := range er.Runs {
			er.Runs[i].Overlap10, er.Runs[i].OverlapQueries = overlap10(runs[i].Hits, ref[i].Hits)
			if refReport[i].CPUMeanUS > 0 {
				er.Runs[i].CPUVsGPUSearch = er.Runs[i].CPUMeanUS / refReport[i].CPUMeanUS
			}
			if refReport[i].WallMeanUS > 0 {
				er.Runs[i].WallVsGPUSearch = er.Runs[i].WallMeanUS / refReport[i].WallMeanUS
			}
		}
		if cfg.TRECDir != "" {
			for _, r := range runs {
				path := filepath.Join(cfg.TRECDir, fmt.Sprintf("%s.%s.%d.run", e.Name(), r.Spec.Mode, r.Spec.K))
				if err := writeTREC(path, cfg.Queries, r.Hits, cfg.Corpus.DocNos, e.Name()); err != nil {
					return nil, err
				}
			}
		}
		rep.Engines = append(rep.Engines, er)
	}
	return rep, nil
}

// measure builds one engine's index and answers every Spec.
func measure(ctx context.Context, cfg Config, e Engine, texts []string, keep int) (EngineReport, []Run, error) {
	er := EngineReport{Name: e.Name()}
	dir := filepath.Join(cfg.WorkDir, "index-"+e.Name())
	if err := os.RemoveAll(dir); err != nil {
		return er, nil, err
	}
	if !cfg.KeepIndexes {
		defer os.RemoveAll(dir)
	}
	progress(cfg.Progress, "%s: indexing %d documents", e.Name(), cfg.Corpus.Len())
	took, err := e.Index(ctx, cfg.Corpus, dir)
	if err != nil {
		return er, nil, err
	}
	er.Info = e.Info()
	er.IndexSeconds = took.Seconds()
	if er.IndexBytes, err = dirSize(dir); err != nil {
		return er, nil, err
	}
	progress(cfg.Progress, "%s: indexed in %.2fs, %d bytes; answering %d queries x %d runs",
		e.Name(), er.IndexSeconds, er.IndexBytes, len(texts), len(cfg.Specs))
	runtime.GC()
	start := time.Now()
	runs, err := e.Search(ctx, texts, cfg.Specs, SearchOptions{Warmup: cfg.Warmup, Repeat: cfg.Repeat, Keep: keep})
	if err != nil {
		return er, nil, err
	}
	if len(runs) != len(cfg.Specs) {
		return er, nil, fmt.Errorf("peer: %s answered %d runs, want %d", e.Name(), len(runs), len(cfg.Specs))
	}
	for i, r := range runs {
		if r.Spec != cfg.Specs[i] || len(r.Wall) != max(cfg.Repeat, 1)*len(texts) || len(r.CPU) != len(r.Wall) || len(r.Hits) != len(texts) {
			return er, nil, fmt.Errorf("peer: %s run %d does not match %s over %d queries", e.Name(), i, cfg.Specs[i], len(texts))
		}
		er.Runs = append(er.Runs, summarize(r))
	}
	progress(cfg.Progress, "%s: searched in %v", e.Name(), time.Since(start).Round(time.Millisecond))
	return er, runs, nil
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
