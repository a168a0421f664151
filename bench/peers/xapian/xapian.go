package xapian

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/gpusearch/gpusearch/bench/peers/peer"
)

//go:embed harness.py
var source []byte

// Python is the interpreter that has Debian's Xapian bindings.
const Python = "/usr/bin/python3"

// Engine is the Xapian harness; Close removes the harness script.
type Engine struct {
	*peer.Harness
	dir string
}

// New writes the harness to a temporary directory. Without Python or its
// xapian module it returns an error wrapping peer.ErrNotInstalled.
func New(ctx context.Context) (*Engine, error) {
	if out, err := exec.CommandContext(ctx, Python, "-c", "import xapian").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("xapian: %s cannot import xapian: %w (bench/peers/install.sh installs python3-xapian): %s",
			Python, peer.ErrNotInstalled, out)
	}
	dir, err := os.MkdirTemp("", "peer-xapian-")
	if err != nil {
		return nil, err
	}
	script := filepath.Join(dir, "harness.py")
	if err := os.WriteFile(script, source, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	h := &peer.Harness{
		EngineName: "xapian",
		Command:    []string{Python, script},
		Desc: peer.Info{
			Analysis: "TermGenerator (Xapian's word splitter, lowercase), Snowball english (Porter2), STEM_ALL, no stop words",
			Scoring:  "BM25Weight(k1 0.9, k2 0, k3 1, b 0.4, min_normlen 0): idf ln((N-df+0.5)/(df+0.5)), ln(x/2+1) below x=2, float64",
		},
	}
	return &Engine{Harness: h, dir: dir}, nil
}

// Close removes the harness script.
func (e *Engine) Close() error { return os.RemoveAll(e.dir) }
