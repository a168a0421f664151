package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/bench"
	"github.com/gpusearch/gpusearch/config"
	"github.com/gpusearch/gpusearch/index"
	"github.com/gpusearch/gpusearch/indexer"
)

func init() { subcommands = append(subcommands, newIndexCmd) }

// indexFlags are the flags that override the config's index section.
type indexFlags struct {
	codec, freqCodec, out, order string
	store, positionsCodec        string
	positions                    bool
	fromCompressed               string
	seed                         uint64
	workers, passages, shards    int
	titleWeight                  int
	memoryMB, maxDocBytes        int64
	quiet, json, force, update   bool
}

func newIndexCmd() *cobra.Command {
	var f indexFlags
	cmd := &cobra.Command{
		Use:   "index [flags] CRAWL_DIR | index --shards N --out DIR CRAWL_DIR | index --update --out DIR CRAWL_DIR | index --from-compressed DIR [flags]",
		Short: "Index a crawl directory (HTML, text, markdown) into a compressed inverted index",
		Args:  cobra.RangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			ic := cfg.Index
			fl := cmd.Flags()
			opts := indexOptions(cfg)
			opts.DocIDCodec = pick(fl.Changed("codec"), f.codec, ic.DocIDCodec)
			opts.FreqCodec = pick(fl.Changed("freq-codec"), f.freqCodec, pick(fl.Changed("codec"), f.codec, ic.FreqCodec))
			opts.Order = pick(fl.Changed("order"), f.order, ic.Order)
			opts.Seed = pick(fl.Changed("seed"), f.seed, ic.Seed)
			opts.Workers = pick(fl.Changed("workers"), f.workers, ic.Workers)
			opts.MemoryBudget = pick(fl.Changed("memory-mb"), f.memoryMB, ic.MemoryBudgetMB) << 20
			opts.MaxDocBytes = pick(fl.Changed("max-doc-bytes"), f.maxDocBytes, ic.MaxDocBytes)
			opts.Passages = f.passages
			opts.Store = pick(fl.Changed("store"), f.store, ic.Store)
			opts.Positions = pick(fl.Changed("positions"), f.positions, ic.Positions)
			opts.PositionsCodec = pick(fl.Changed("positions-codec"), f.positionsCodec, ic.PositionsCodec)
			opts.TitleWeight = pick(fl.Changed("title-weight"), f.titleWeight, int(ic.TitleWeight))
			opts.Force = f.force
			opts.Progress = stderrUnlessQuiet(f.quiet)
			if f.update {
				if f.shards > 0 {
					return usagef("index: --update of a sharded collection is not supported yet: index it again with --shards")
				}
				return updateIndex(cmd, f, opts, args)
			}
			if fl.Changed("shards") {
				if f.fromCompressed != "" || len(args) != 1 || f.shards < 1 {
					return usagef("index: --shards needs a count of at least 1 and CRAWL_DIR (not --from-compressed)")
				}
				rep, err := indexer.BuildShards(cmd.Context(), args[0], f.out, f.shards, opts)
				if err != nil {
					return forceHint(err)
				}
				return reportShards(rep, opts.MemoryBudget>>20, f.quiet, f.json)
			}
			if f.fromCompressed != "" && f.passages > 0 {
				return usagef("index: --passages splits crawl documents; it does not apply to --from-compressed")
			}
			if f.fromCompressed != "" && opts.TitleWeight != 0 {
				return usagef("index: a compressed corpus keeps no titles: a title weight does not apply to --from-compressed")
			}
			if f.fromCompressed != "" {
				if len(args) != 0 || fl.Changed("order") {
					return usagef("index: --from-compressed takes no CRAWL_DIR and keeps the corpus's docid order")
				}
				return indexFromCompressed(cmd, f, opts)
			}
			if len(args) != 1 {
				return usagef("index: CRAWL_DIR is required")
			}
			rep, err := indexer.Build(cmd.Context(), args[0], f.out, opts)
			if err != nil {
				return forceHint(err)
			}
			summary := bench.SummarizeIndex(rep, f.out)
			summary.MemoryBudgetMB = opts.MemoryBudget >> 20
			if !f.quiet {
				printProblems(rep)
				fmt.Fprintf(os.Stderr, "indexed %d documents (%.1f MB) in %s: %.0f docs/s, %.1f MB/s, %d terms, %d postings, %.2f bits/docid, index %.1f MB, peak RSS %.0f MB\n",
					rep.Documents, float64(rep.InputBytes)/1e6, rep.Elapsed.Round(time.Millisecond), summary.DocsPerSec,
					summary.InputMBPerSec, rep.Terms, rep.Postings, summary.BitsPerDocID, float64(summary.IndexBytes)/1e6, summary.PeakRSSMB)
			}
			if f.json {
				return writeJSON(os.Stdout, summary)
			}
			return nil
		},
	}
	addConfigFlag(cmd)
	addProfiling(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "index", "output index directory")
	fl.StringVar(&f.codec, "codec", "", "codec for docids (and frequencies unless --freq-codec)")
	fl.StringVar(&f.freqCodec, "freq-codec", "", "codec for frequencies")
	fl.StringVar(&f.order, "order", "", "docid order: url, crawl or random")
	fl.StringVar(&f.fromCompressed, "from-compressed", "", "build from a corpus written by gpusearch compress instead of a crawl")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the random order")
	fl.IntVar(&f.workers, "workers", 0, "parsing goroutines (0 = every core)")
	fl.Int64Var(&f.memoryMB, "memory-mb", 0, "postings memory budget in MiB before spilling runs")
	fl.Int64Var(&f.maxDocBytes, "max-doc-bytes", 0, "largest document read, in bytes")
	fl.StringVar(&f.store, "store", "", "document store: text (titles and text), titles or none")
	fl.BoolVar(&f.positions, "positions", false, "keep token positions, for phrase queries (index.positions)")
	fl.StringVar(&f.positionsCodec, "positions-codec", "", "codec of the positions (default: the docid codec)")
	fl.IntVar(&f.titleWeight, "title-weight", 0, "count each title's terms this many more times, in frequency and length (index.title_weight; 0 = plain BM25; needs --positions=false)")
	fl.IntVar(&f.passages, "passages", 0, "split each document into passages of about N terms, each a document with URL ...#p<i> (0 = whole documents)")
	fl.IntVar(&f.shards, "shards", 0, "write --out as a sharded collection of N shards (URL ranges, each scored under the whole collection's statistics; shards.json names them)")
	fl.BoolVar(&f.force, "force", false, forceUsage)
	fl.BoolVar(&f.update, "update", false, "bring the index in --out up to date with CRAWL_DIR: parse only new and changed files and merge (it keeps the index's codecs, store, positions, passages and title weight)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress or summary on stderr")
	fl.BoolVar(&f.json, "json", false, "print the build report as JSON on stdout")
	return cmd
}

// indexOptions are the indexer options the config's index and bm25
// sections give; flags override them.
func indexOptions(cfg config.Config) indexer.Options {
	ic := cfg.Index
	return indexer.Options{
		DocIDCodec: ic.DocIDCodec, FreqCodec: ic.FreqCodec, Order: ic.Order, Seed: ic.Seed,
		Workers: ic.Workers, MemoryBudget: ic.MemoryBudgetMB << 20, MaxDocBytes: ic.MaxDocBytes,
		Oversize: ic.Oversize, TempDir: ic.TempDir, Store: ic.Store, BM25: cfg.BM25,
		Positions: ic.Positions, PositionsCodec: ic.PositionsCodec, TitleWeight: int(ic.TitleWeight), Merge: mergePolicy(ic.Merge),
	}
}

// mergePolicy is the merge policy the config's index.merge gives.
func mergePolicy(m config.Merge) indexer.MergePolicy {
	floor := m.FloorShare
	if floor == 0 {
		floor = -1 // the indexer's zero is its default
	}
	return indexer.MergePolicy{Off: m.Policy == "off", SegmentsPerTier: m.SegmentsPerTier, TierRatio: m.TierRatio,
		FloorShare: floor, MaxDeletedShare: m.MaxDeletedShare, MaxMergeDocs: m.MaxMergeDocs}
}

// forceUsage documents the --force of the commands that write an index.
const forceUsage = "replace the index in the output directory even with an empty one or one of fewer than half its documents"

// forceHint adds to a refusal to shrink an index the flag that overrides it.
func forceHint(err error) error {
	if errors.Is(err, index.ErrShrink) {
		return fmt.Errorf("%w (--force replaces it anyway)", err)
	}
	return err
}

// pick returns the flag's value when it was set, else the config's.
func pick[T any](changed bool, flag, cfg T) T {
	if changed {
		return flag
	}
	return cfg
}

// printProblems reports the files a build skipped or cut, each kind with
// its count and first names.
func printProblems(rep indexer.Report) {
	for _, s := range rep.Skipped() {
		if s.Count > 0 {
			fmt.Fprintf(os.Stderr, "%s: %v\n", s.What, s.Problem)
		}
	}
}
