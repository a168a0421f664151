package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/api"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer/analysis"
	"github.com/gpusearch/gpusearch/query"
)

func init() { subcommands = append(subcommands, newSearchCmd) }

func newSearchCmd() *cobra.Command {
	var dir, mode, engine string
	var k int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "search --index DIR [flags] QUERY...",
		Short: "Answer one query from the command line",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			fl := cmd.Flags()
			m, err := query.ParseMode(pick(fl.Changed("mode"), mode, cfg.Search.Mode))
			if err != nil {
				return usageError{err}
			}
			k = pick(fl.Changed("k"), k, cfg.Search.K)
			if k <= 0 {
				return usagef("--k must be positive")
			}
			ix, err := index.Open(dir)
			if err != nil {
				return err
			}
			defer ix.Close()
			name := pick(fl.Changed("engine"), engine, cfg.Search.Engine)
			eng, err := cpuEngine(ix, name)
			if err != nil {
				return err
			}
			text := strings.Join(args, " ")
			q := query.Parse(analysis.New(), text, m, k)
			res, err := eng.Search(cmd.Context(), q)
			if err != nil {
				return err
			}
			resp := api.SearchResponse{Query: text, Mode: string(m), Engine: name, TookUS: res.Stats.Took.Microseconds(), Stats: res.Stats, Hits: []api.Hit{}}
			for _, h := range res.Hits {
				resp.Hits = append(resp.Hits, api.Hit{DocID: h.DocID, URL: ix.URL(h.DocID), Score: h.Score})
			}
			if asJSON {
				return writeJSON(os.Stdout, resp)
			}
			for i, h := range resp.Hits {
				fmt.Printf("%3d  %8.4f  %s\n", i+1, h.Score, h.URL)
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
	fl.StringVar(&engine, "engine", "", "cpu, gpu, auto, bitmap, or a CPU algorithm (default from config: auto)")
	fl.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// errNoGPU is what a GPU request gets from this build.
var errNoGPU = errors.New("engine gpu: built without CUDA support (build with -tags cuda)")

// cpuEngine resolves an engine name for the command line: auto means the
// CPU until a scheduler exists.
func cpuEngine(ix *index.Index, name string) (query.Engine, error) {
	switch name {
	case "auto":
		name = "cpu"
	case "gpu":
		return nil, errNoGPU
	}
	e, err := query.New(ix, name)
	if err != nil {
		return nil, usageError{err}
	}
	return e, nil
}
