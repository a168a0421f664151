package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/analytics"
	"github.com/gpusearch/gpusearch/bench"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
)

func init() { subcommands = append(subcommands, newCompressCmd) }

type compressFlags struct {
	out         string
	raw         bool
	maxDocBytes int64
	maxDocs     int
	workers     int
	noGzip      bool
	quiet, json bool
}

func newCompressCmd() *cobra.Command {
	var f compressFlags
	cmd := &cobra.Command{
		Use:   "compress --out DIR [flags] CRAWL_DIR",
		Short: "Compress a crawl into a grammar (Sequitur over dictionary-coded words) for analytics without decompression",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.out == "" {
				return usagef("compress: --out is required")
			}
			c, rep, err := analytics.Compress(cmd.Context(), args[0], analytics.CompressOptions{
				Raw: f.raw, MaxDocBytes: f.maxDocBytes, MaxDocs: f.maxDocs, Workers: f.workers,
				NoGzip: f.noGzip, Progress: stderrUnlessQuiet(f.quiet),
			})
			if err != nil {
				return err
			}
			if err := c.WriteDir(f.out); err != nil {
				return err
			}
			m, s := c.Meta, bench.SummarizeCompress(c.Meta, rep)
			if !f.quiet {
				printProblems(rep.Walk)
				if rep.Unreadable > 0 {
					fmt.Fprintf(os.Stderr, "unreadable documents left out: %d\n", rep.Unreadable)
				}
				fmt.Fprintf(os.Stderr, "compressed %d documents (%d words, %d distinct) in %s (Sequitur %s): %d rules, %d grammar symbols\n",
					m.Documents, m.Tokens, m.Words, time.Duration(m.ElapsedSeconds*1e9).Round(time.Millisecond),
					time.Duration(m.SequiturSecs*1e9).Round(time.Millisecond), m.Rules, m.GrammarSymbols)
				fmt.Fprintf(os.Stderr, "dictionary + grammar %.2f MB: text %.2f MB (%.2fx), gzip text %.2f MB (%.2fx), words as text %.2f MB (%.2fx), gzip words %.2f MB (%.2fx)\n",
					float64(s.CompressedBytes)/1e6, float64(m.TextBytes)/1e6, s.RatioText, float64(m.GzipTextBytes)/1e6, s.RatioGzipText,
					float64(m.WordTextBytes)/1e6, s.RatioWords, float64(m.GzipWordBytes)/1e6, s.RatioGzipWords)
			}
			if f.json {
				return writeJSON(os.Stdout, s)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "output directory of the compressed corpus (required)")
	fl.BoolVar(&f.raw, "raw", false, "raw lowercase words instead of the indexing analysis (no stemming; cannot build an index)")
	fl.Int64Var(&f.maxDocBytes, "max-doc-bytes", 0, "largest document read, in bytes (0: the indexer's default)")
	fl.IntVar(&f.maxDocs, "max-docs", 0, "compress only the first N documents in URL order (0: all)")
	fl.IntVar(&f.workers, "workers", 0, "reading and analysis goroutines (0 = every core)")
	fl.BoolVar(&f.noGzip, "no-gzip", false, "skip the gzip size measurements")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress or summary on stderr")
	fl.BoolVar(&f.json, "json", false, "print the compression summary as JSON on stdout")
	return cmd
}

// indexFromCompressed is `index --from-compressed`: the inverted index
// computed on the compressed corpus, written with the codecs and BM25
// parameters the flags and config give.
func indexFromCompressed(cmd *cobra.Command, f indexFlags, opts indexer.Options) error {
	start := time.Now()
	c, err := analytics.Open(f.fromCompressed)
	if err != nil {
		return err
	}
	res, err := analytics.BuildIndex(cmd.Context(), c, f.out, index.WriterOptions{
		DocIDCodec: opts.DocIDCodec, FreqCodec: opts.FreqCodec, BM25: opts.BM25, Force: opts.Force,
	}, analytics.Auto)
	if err != nil {
		return forceHint(err)
	}
	rep := indexer.Report{Documents: c.Meta.Documents, Elapsed: time.Since(start)}
	for t := range res.Postings.Rows() {
		if docs, _ := res.Postings.Row(t); len(docs) > 0 {
			rep.Terms++
			rep.Postings += uint64(len(docs))
		}
	}
	summary := bench.SummarizeIndex(rep, f.out)
	if !f.quiet {
		fmt.Fprintf(os.Stderr, "indexed %d documents from the compressed corpus %s in %s (%s traversal, %s): %d terms, %d postings, %.2f bits/docid, index %.1f MB\n",
			rep.Documents, f.fromCompressed, rep.Elapsed.Round(time.Millisecond), res.Traversal, (res.Init + res.Traverse).Round(time.Millisecond),
			rep.Terms, rep.Postings, summary.BitsPerDocID, float64(summary.IndexBytes)/1e6)
	}
	if f.json {
		return writeJSON(os.Stdout, summary)
	}
	return nil
}
