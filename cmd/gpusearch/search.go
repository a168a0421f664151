package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/analysis"
	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/eval"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/query"
)

func init() { subcommands = append(subcommands, newSearchCmd) }

func newSearchCmd() *cobra.Command {
	var dir, mode, engine string
	var k int
	var asJSON bool
	var trec bool
	var qid, queriesFile, tag string
	cmd := &cobra.Command{
		Use:   "search --index DIR [flags] QUERY... | --queries FILE",
		Short: "Answer one query from the command line, or a queries file as a TREC run",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			trec = trec || queriesFile != ""
			switch {
			case queriesFile == "" && len(args) == 0:
				return usagef("search needs a QUERY or --queries FILE")
			case queriesFile != "" && len(args) > 0:
				return usagef("search takes either a QUERY or --queries FILE, not both")
			case trec && asJSON:
				return usagef("--json and TREC output (--trec, --queries) exclude each other")
			}
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			fl := cmd.Flags()
			m, err := query.ParseMode(pick(fl.Changed("mode"), mode, cfg.Search.Mode))
			if err != nil {
				return usageError{err}
			}
			defaultK := cfg.Search.K
			if trec {
				defaultK = eval.MaxRunDepth
			}
			k = pick(fl.Changed("k"), k, defaultK)
			if k <= 0 {
				return usagef("--k must be positive")
			}
			if index.IsSharded(dir) {
				return fmt.Errorf("search: %s is a sharded collection: search one of its shards (--index %s/shard-00), or serve it all (gpusearch serve --index %s)", dir, dir, dir)
			}
			ix, err := index.Open(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			name := pick(fl.Changed("engine"), engine, cfg.Search.Engine)
			eng, closeEngine, err := openEngine(ix, cfg.GPU, name)
			if err != nil {
				return err
			}
			defer closeEngine()
			if trec {
				return searchTREC(cmd.Context(), ix, eng, m, k, tag, queriesFile, eval.Query{ID: qid, Text: strings.Join(args, " ")})
			}
			text := strings.Join(args, " ")
			a := analysis.New()
			q, err := query.Parse(a, text, m, k)
			if err != nil {
				return usageError{err}
			}
			res, err := eng.Search(cmd.Context(), q)
			if err != nil {
				return err
			}
			resp := api.SearchResponse{Query: text, Mode: string(m), Engine: name, TookUS: res.Stats.Took.Microseconds(), Stats: res.Stats, Hits: []api.Hit{}}
			for _, h := range res.Hits {
				resp.Hits = append(resp.Hits, api.Hit{DocID: h.DocID, URL: ix.URL(h.DocID), Score: h.Score})
			}
			if err := api.Describe(ix, a, q, resp.Hits, cfg.Search.SnippetBytes, false, cfg.Search.SnippetWorkers); err != nil {
				return err
			}
			// A shard answers in its collection's docids, as serve does.
			info, _ := ix.Shard()
			for i := range resp.Hits {
				resp.Hits[i].DocID += info.FirstDoc
			}
			if asJSON {
				return writeJSON(os.Stdout, resp)
			}
			if err := resp.WriteText(os.Stdout); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "%d hits in %dus (%s)\n", len(resp.Hits), resp.TookUS, res.Stats.Algorithm)
			return nil
		},
	}
	addConfigFlag(cmd)
	fl := cmd.Flags()
	fl.StringVar(&dir, "index", "index", "index directory")
	fl.StringVar(&mode, "mode", "", "and, or or andor (default from config: andor)")
	fl.IntVar(&k, "k", 0, "number of results (default from config: 10)")
	fl.StringVar(&engine, "engine", "", "auto (the cpu engine here) or one of "+strings.Join(query.Engines(), ", ")+" (default from config: auto)")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	fl.BoolVar(&trec, "trec", false, "print a TREC run (qid Q0 docno rank score tag); k defaults to 1000")
	fl.StringVar(&qid, "qid", "1", "query id of the command-line query in TREC output")
	fl.StringVar(&queriesFile, "queries", "", "answer every query of FILE (qid<TAB>text lines) and print one TREC run")
	fl.StringVar(&tag, "tag", "gpusearch", "run tag of TREC output")
	return cmd
}

// searchTREC answers the command-line query, or every query of
// queriesFile when one is given, and prints the hits as a TREC run whose
// docnos are the documents' file names without extension (eval.DocNo).
func searchTREC(ctx context.Context, ix *index.Index, eng query.Engine, m query.Mode, k int, tag, queriesFile string, cmdline eval.Query) error {
	qs := []eval.Query{cmdline}
	if queriesFile != "" {
		f, err := os.Open(queriesFile)
		if err != nil {
			return err
		}
		qs, err = eval.ReadQueries(f)
		f.Close()
		if err != nil {
			return err
		}
	}
	a := analysis.New()
	search := func(ctx context.Context, text string) ([]query.Hit, error) {
		q, err := query.Parse(a, text, m, k)
		if err != nil {
			return nil, err
		}
		res, err := eng.Search(ctx, q)
		return res.Hits, err
	}
	docno := func(docid uint32) string { return eval.DocNo(ix.URL(docid)) }
	start := time.Now()
	if err := eval.RunQueries(ctx, os.Stdout, qs, search, docno, tag); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%d queries, mode %s, k %d, in %v\n", len(qs), m, k, time.Since(start).Round(time.Millisecond))
	return nil
}
