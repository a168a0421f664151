// Command gpusearch indexes crawl directories into compressed inverted
// indexes, answers ranked queries on the CPU or an NVIDIA GPU, serves them
// over REST, and benchmarks every part. main only wires: each subcommand
// lives in its own file and calls into the packages that do the work.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// subcommands is filled by each subcommand file's init.
var subcommands []func() *cobra.Command

// usageError marks errors that should exit with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "gpusearch",
		Short:         "GPU-accelerated search engine: index, search, serve, benchmark",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	for _, mk := range subcommands {
		root.AddCommand(mk())
	}
	return root
}

func main() {
	// SIGINT and SIGTERM cancel the command's context; every command
	// stops on it. Once one has come, stop restores the default action,
	// so a second signal kills at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, func() {
		stop()
		// stop itself cancels ctx, with no cause beyond Canceled.
		if context.Cause(ctx) != context.Canceled {
			fmt.Fprintln(os.Stderr, "gpusearch: stopping; a second signal stops at once")
		}
	})
	err := newRootCmd().ExecuteContext(ctx)
	stop()
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		err = fmt.Errorf("stopped: %w", context.Cause(ctx))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpusearch:", err)
		var ue usageError
		if errors.As(err, &ue) || isCobraUsage(err) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// isCobraUsage recognises cobra's own argument and command errors, which
// it returns as plain errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "requires at most", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
