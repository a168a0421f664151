// Package runner prepares a compressed corpus for repeated timed runs of
// one analytics task, as gpusearch analyze does: on the CPU or the GPU
// (package analytics/gpu), on the compressed form or a baseline (the
// words decompressed, or written as text), with what each needs made
// once, before the timed runs, and timed apart from them.
package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/gpusearch/gpusearch/analytics"
	"github.com/gpusearch/gpusearch/analytics/gpu"
)

// Options choose the task and where and on what form it runs.
type Options struct {
	Task    analytics.Task
	Options analytics.Options
	GPU     bool // the GPU engine instead of the CPU's
	// Plain runs the uncompressed baseline: the plain computation over
	// the decompressed words on the CPU, the corpus without its rules
	// (every word in the root) on the GPU.
	Plain bool
	// Text, with Plain, starts each run from the words written as text,
	// tokenising and looking up every word in the run's time.
	Text bool
}

// Setup is what a Runner spent before the timed runs.
type Setup struct {
	Form                              string // compressed, plain or text
	Load, Decompress, Prepare, Upload time.Duration
}

// Runner runs one task on one corpus, again and again.
type Runner struct {
	Corpus *analytics.Corpus
	Setup  Setup
	opts   Options
	run    func(ctx context.Context) (*analytics.Result, error)
	free   func()
}

// Open loads the corpus written by gpusearch compress in dir and makes
// what o's runs need; Close releases it.
func Open(dir string, o Options) (*Runner, error) {
	if o.Text && !o.Plain {
		return nil, fmt.Errorf("runner: Text needs Plain")
	}
	start := time.Now()
	c, err := analytics.Open(dir)
	if err != nil {
		return nil, err
	}
	r := &Runner{Corpus: c, Setup: Setup{Form: "compressed", Load: time.Since(start)}, opts: o, free: func() {}}
	var docs [][]uint32
	var text []byte
	switch {
	case o.Text:
		r.Setup.Form = "text"
		if !o.GPU { // the GPU's upload writes its own
			start = time.Now()
			if text, err = c.Text(); err != nil {
				return nil, err
			}
			r.Setup.Decompress = time.Since(start)
		}
	case o.Plain:
		r.Setup.Form = "plain"
		start = time.Now()
		if o.GPU {
			c = c.Plain() // the GPU engine's uncompressed baseline: a root without rules
		} else {
			docs = c.Decompress()
		}
		r.Setup.Decompress = time.Since(start)
	}
	switch {
	case o.GPU:
		if err := r.upload(c, o); err != nil {
			return nil, err
		}
	case o.Plain:
		var lex *analytics.Lexer
		if o.Text {
			lex = analytics.NewLexer(c.Dict)
		}
		r.run = func(ctx context.Context) (*analytics.Result, error) {
			start := time.Now()
			docs := docs
			if o.Text {
				var err error
				if docs, err = lex.Docs(text); err != nil {
					return nil, err
				}
			}
			read := time.Since(start)
			res, err := analytics.RunPlain(ctx, docs, len(c.Dict), o.Task, o.Options)
			if err == nil {
				res.Traverse += read
			}
			return res, err
		}
	default:
		if o.Task.WordTables() && o.Options.Traversal != analytics.TopDown {
			// The CPU's bottom-up word tables use the inlined grammar:
			// made once per corpus, before the timed runs (top-down
			// never uses it).
			start = time.Now()
			if _, err := c.Inlined(); err != nil {
				return nil, err
			}
			r.Setup.Prepare = time.Since(start)
		}
		r.run = func(ctx context.Context) (*analytics.Result, error) { return analytics.Run(ctx, c, o.Task, o.Options) }
	}
	return r, nil
}

// upload puts c on the GPU and makes what the task needs beyond the
// upload (the inlined grammar for bottom-up tables).
func (r *Runner) upload(c *analytics.Corpus, o Options) error {
	dev, err := gpu.OpenDevice(gpu.DeviceOptions{})
	if err != nil {
		return err
	}
	start := time.Now()
	put := dev.UploadCorpus
	if o.Text {
		put = dev.UploadText
	}
	a, err := put(c)
	if err != nil {
		dev.Close()
		return err
	}
	r.free = func() {
		a.Free()
		dev.Close()
	}
	r.Setup.Upload = time.Since(start)
	start = time.Now()
	if err := a.Prepare(o.Task, o.Options); err != nil {
		r.Close()
		return err
	}
	r.Setup.Prepare = time.Since(start)
	r.run = func(ctx context.Context) (*analytics.Result, error) { return a.Run(ctx, o.Task, o.Options) }
	return nil
}

// Run runs the task once.
func (r *Runner) Run(ctx context.Context) (*analytics.Result, error) { return r.run(ctx) }

// Close releases what Open made on a device.
func (r *Runner) Close() { r.free() }
