package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gpusearch/gpusearch/indexer"
)

// updateIndex runs index --update: indexer.Update, its counts on stderr
// and, with --json, its report on stdout.
func updateIndex(cmd *cobra.Command, f indexFlags, opts indexer.Options, args []string) error {
	for _, name := range []string{"codec", "freq-codec", "order", "seed", "store", "positions", "positions-codec", "passages", "max-doc-bytes", "from-compressed", "title-weight"} {
		if cmd.Flags().Changed(name) {
			return usagef("index: --update keeps the index's own build options: --%s does not apply", name)
		}
	}
	if len(args) != 1 {
		return usagef("index: --update needs CRAWL_DIR")
	}
	rep, err := indexer.Update(cmd.Context(), args[0], f.out, opts)
	if err != nil {
		return forceHint(err)
	}
	if !f.quiet {
		printProblems(rep.Build)
		what := "nothing changed: no new commit"
		if rep.Committed {
			what = fmt.Sprintf("committed %d documents in %d segments, then merged %d", rep.Documents, rep.Segments, rep.Merged)
		}
		fmt.Fprintf(os.Stderr, "updated in %s (walk %s, hash %s, parse %s, commit %s, merge %s): %d added, %d changed, %d removed, %d unchanged, %d touched; %s\n",
			rep.Elapsed.Round(time.Millisecond), rep.Walk.Round(time.Millisecond), rep.Hash.Round(time.Millisecond),
			rep.Parse.Round(time.Millisecond), rep.Commit.Round(time.Millisecond), rep.Merge.Round(time.Millisecond),
			rep.Added, rep.Changed, rep.Removed, rep.Unchanged, rep.Touched, what)
	}
	if f.json {
		return writeJSON(os.Stdout, rep)
	}
	return nil
}
