package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/analytics"
	"github.com/gpusearch/gpusearch/analytics/runner"
)

func init() { subcommands = append(subcommands, newAnalyzeCmd) }

type analyzeFlags struct {
	task, engine, traversal string
	seqLen, repeat          int
	json, plain, text       bool
	discard, quiet          bool
}

func newAnalyzeCmd() *cobra.Command {
	var f analyzeFlags
	cmd := &cobra.Command{
		Use:   "analyze --task TASK [flags] DIR",
		Short: "Run a text analytics task directly on a compressed corpus (see gpusearch compress)",
		Long: `Run a text analytics task directly on a corpus written by gpusearch compress,
without decompressing it. Tasks: wordcount, sort, invindex, termvector,
seqcount, rankedinv (the analytics package documents each and its JSON).
--plain decompresses first and runs the plain computation instead, the
baseline the compressed form is measured against; with --engine gpu it runs
the GPU engine on the corpus without its rules (every word in the root),
the GPU's uncompressed baseline. --plain --text starts every run from the
words written as text (a space between words, a newline after each
document): tokenising and looking up each word is part of the run's time,
as for the uncompressed baseline of the G-TADOC paper, which reads text.
Timings go to stderr as one key=value line per run.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			task, err := analytics.ParseTask(f.task)
			if err != nil {
				return usageError{err}
			}
			trav, err := analytics.ParseTraversal(f.traversal)
			if err != nil {
				return usageError{err}
			}
			switch {
			case f.engine != "cpu" && f.engine != "gpu":
				return usagef("analyze: unknown engine %q (want cpu or gpu)", f.engine)
			}
			if f.text && !f.plain {
				return usagef("analyze: --text needs --plain (it is the baseline that starts from text)")
			}
			if f.repeat < 1 {
				return usagef("analyze: --repeat must be at least 1")
			}
			if f.seqLen < 1 || f.seqLen > analytics.MaxSeqLen {
				return usagef("analyze: --seq-len must be in 1..%d", analytics.MaxSeqLen)
			}
			r, err := runner.Open(args[0], runner.Options{Task: task, Options: analytics.Options{Traversal: trav, SeqLen: f.seqLen},
				GPU: f.engine == "gpu", Plain: f.plain, Text: f.text})
			if err != nil {
				return err
			}
			defer r.Close()
			c, s := r.Corpus, r.Setup
			var res *analytics.Result
			for range f.repeat {
				// Each run starts from a collected heap, outside its timing:
				// otherwise the runs of the first GC cycle after loading
				// write their results into fresh pages, whose first-touch
				// faults a later run does not pay (docs/analytics.md, run 24).
				runtime.GC()
				cpu0 := cpuTime()
				res, err = r.Run(cmd.Context())
				if err != nil {
					return err
				}
				cpu := cpuTime() - cpu0
				if !f.quiet {
					fmt.Fprintf(os.Stderr, "analyze: task=%s engine=%s form=%s traversal=%s est_topdown=%.0f est_bottomup=%.0f docs=%d words=%d rules=%d load_ms=%.1f decompress_ms=%.1f prepare_ms=%.1f upload_ms=%.1f init_ms=%.2f traverse_ms=%.2f kernels_ms=%.3f total_ms=%.2f cpu_ms=%.2f entries=%d\n",
						task, f.engine, s.Form, res.Traversal, res.Estimate.TopDown, res.Estimate.BottomUp,
						c.Meta.Documents, c.Meta.Tokens, c.Meta.Rules, ms(s.Load), ms(s.Decompress), ms(s.Prepare), ms(s.Upload), ms(res.Init), ms(res.Traverse),
						ms(res.Kernels), ms(res.Init+res.Traverse), ms(cpu), res.Entries())
				}
			}
			if f.discard {
				return nil
			}
			if f.json {
				return res.WriteJSON(os.Stdout, c.Dict, c.URLs)
			}
			return res.WriteText(os.Stdout, c.Dict, c.URLs)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.task, "task", "", "wordcount, sort, invindex, termvector, seqcount or rankedinv (required)")
	fl.StringVar(&f.engine, "engine", "cpu", "engine: cpu, or gpu (both traversals of every task but wordcount and sort, which run top-down)")
	fl.StringVar(&f.traversal, "traversal", "auto", "DAG traversal: auto (cost estimate), topdown or bottomup")
	fl.IntVar(&f.seqLen, "seq-len", 3, "words per sequence for seqcount")
	fl.IntVar(&f.repeat, "repeat", 1, "run the task this many times, collecting garbage before each run, outside its timing (timings for each on stderr)")
	fl.BoolVar(&f.json, "json", false, "print the result as one JSON document")
	fl.BoolVar(&f.plain, "plain", false, "decompress, then run the plain computation (the baseline); with --engine gpu, the GPU engine on the corpus without its rules")
	fl.BoolVar(&f.text, "text", false, "with --plain: start each run from the words as text, tokenising and looking up every word in it")
	fl.BoolVar(&f.discard, "discard", false, "print no result, only timings (for measurements)")
	fl.BoolVar(&f.quiet, "quiet", false, "no timings on stderr")
	addProfiling(cmd)
	return cmd
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// cpuTime returns the process's user and system CPU time so far: on a
// shared machine it varies less than wall time (garbage collection on
// other threads included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
