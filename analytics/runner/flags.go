package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/gpusearch/gpusearch/analytics"
)

// Flags are gpusearch analyze's command line: the task, where and on what
// form it runs, and how many times.
type Flags struct {
	Task, Engine, Traversal string
	SeqLen, Repeat          int
	Plain, Text             bool
}

// AddFlags declares analyze's flags on fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Task, "task", "", "wordcount, sort, invindex, termvector, seqcount or rankedinv (required)")
	fs.StringVar(&f.Engine, "engine", "cpu", "engine: cpu, or gpu (both traversals of every task but wordcount and sort, which run top-down)")
	fs.StringVar(&f.Traversal, "traversal", "auto", "DAG traversal: auto (cost estimate), topdown or bottomup")
	fs.IntVar(&f.SeqLen, "seq-len", 3, "words per sequence for seqcount")
	fs.IntVar(&f.Repeat, "repeat", 1, "run the task this many times, collecting garbage before each run, outside its timing (timings for each on stderr)")
	fs.BoolVar(&f.Plain, "plain", false, "decompress, then run the plain computation (the baseline); with --engine gpu, the GPU engine on the corpus without its rules")
	fs.BoolVar(&f.Text, "text", false, "with --plain: start each run from the words as text, tokenising and looking up every word in it")
}

// Options checks the flags and gives the runner's options.
func (f *Flags) Options() (Options, error) {
	task, err := analytics.ParseTask(f.Task)
	if err != nil {
		return Options{}, err
	}
	trav, err := analytics.ParseTraversal(f.Traversal)
	if err != nil {
		return Options{}, err
	}
	switch {
	case f.Engine != "cpu" && f.Engine != "gpu":
		return Options{}, fmt.Errorf("analyze: unknown engine %q (want cpu or gpu)", f.Engine)
	case f.Text && !f.Plain:
		return Options{}, errors.New("analyze: --text needs --plain (it is the baseline that starts from text)")
	case f.Repeat < 1:
		return Options{}, errors.New("analyze: --repeat must be at least 1")
	case f.SeqLen < 1 || f.SeqLen > analytics.MaxSeqLen:
		return Options{}, fmt.Errorf("analyze: --seq-len must be in 1..%d", analytics.MaxSeqLen)
	}
	return Options{Task: task, Options: analytics.Options{Traversal: trav, SeqLen: f.SeqLen},
		GPU: f.Engine == "gpu", Plain: f.Plain, Text: f.Text}, nil
}

// Repeat runs the task n times and returns the last result, writing one
// key=value line of timings per run to w unless it is nil. Each run
// starts from a collected heap, outside its timing: otherwise the runs of
// the first GC cycle after loading write their results into fresh pages,
// whose first-touch faults a later run does not pay (docs/analytics.md).
func (r *Runner) Repeat(ctx context.Context, n int, w io.Writer) (*analytics.Result, error) {
	c, s, engine := r.Corpus, r.Setup, "cpu"
	if r.opts.GPU {
		engine = "gpu"
	}
	var res *analytics.Result
	for range n {
		runtime.GC()
		cpu0 := cpuTime()
		var err error
		if res, err = r.Run(ctx); err != nil {
			return nil, err
		}
		cpu := cpuTime() - cpu0
		if w != nil {
			fmt.Fprintf(w, "analyze: task=%s engine=%s form=%s traversal=%s est_topdown=%.0f est_bottomup=%.0f docs=%d words=%d rules=%d load_ms=%.1f decompress_ms=%.1f prepare_ms=%.1f upload_ms=%.1f init_ms=%.2f traverse_ms=%.2f kernels_ms=%.3f total_ms=%.2f cpu_ms=%.2f entries=%d\n",
				r.opts.Task, engine, s.Form, res.Traversal, res.Estimate.TopDown, res.Estimate.BottomUp,
				c.Meta.Documents, c.Meta.Tokens, c.Meta.Rules, ms(s.Load), ms(s.Decompress), ms(s.Prepare), ms(s.Upload), ms(res.Init), ms(res.Traverse),
				ms(res.Kernels), ms(res.Init+res.Traverse), ms(cpu), res.Entries())
		}
	}
	return res, nil
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
