package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/analytics/runner"
)

func init() { subcommands = append(subcommands, newAnalyzeCmd) }

func newAnalyzeCmd() *cobra.Command {
	var f runner.Flags
	var asJSON, discard, quiet bool
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
			o, err := f.Options()
			if err != nil {
				return usageError{err}
			}
			r, err := runner.Open(args[0], o)
			if err != nil {
				return err
			}
			defer r.Close()
			res, err := r.Repeat(cmd.Context(), f.Repeat, stderrUnlessQuiet(quiet))
			if err != nil || discard {
				return err
			}
			if asJSON {
				return res.WriteJSON(os.Stdout, r.Corpus.Dict, r.Corpus.URLs)
			}
			return res.WriteText(os.Stdout, r.Corpus.Dict, r.Corpus.URLs)
		},
	}
	f.AddFlags(cmd.Flags())
	fl := cmd.Flags()
	fl.BoolVar(&asJSON, "json", false, "print the result as one JSON document")
	fl.BoolVar(&discard, "discard", false, "print no result, only timings (for measurements)")
	fl.BoolVar(&quiet, "quiet", false, "no timings on stderr")
	addProfiling(cmd)
	return cmd
}
