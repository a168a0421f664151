package lucene

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gpusearch/gpusearch/bench/peers/peer"
)

//go:embed Harness.java
var source []byte

// JarDir is where Debian installs the Lucene jars.
const JarDir = "/usr/share/java"

// jars are the jar name patterns the harness needs.
var jars = []string{"lucene-core-8*.jar", "lucene-analyzers-common-8*.jar"}

var analyses = map[string]string{
	"porter2":  "StandardTokenizer (UAX #29), LowerCaseFilter, Snowball English (Porter2), no stop words",
	"english":  "EnglishAnalyzer: StandardTokenizer, possessives, lowercase, 33 stop words, Porter1",
	"standard": "StandardAnalyzer: StandardTokenizer, lowercase, no stemming, no stop words",
}

// Engine is the Lucene harness; Close removes its compiled classes.
type Engine struct {
	*peer.Harness
	classes string
}

// Options say how the harness indexes the body.
type Options struct {
	Analyzer  string // "porter2" (the default), "english" or "standard"
	Positions bool   // index positions too (phrase queries need them)
	Store     string // stored fields besides the name: "none" (the default), "titles" or "text" (title and body)
}

// New compiles the harness. Without java, javac or the jars it returns an
// error wrapping peer.ErrNotInstalled.
func New(ctx context.Context, o Options) (*Engine, error) {
	if o.Analyzer == "" {
		o.Analyzer = "porter2"
	}
	if o.Store == "" {
		o.Store = "none"
	}
	desc, ok := analyses[o.Analyzer]
	if !ok {
		return nil, fmt.Errorf("lucene: unknown analyzer %q (want porter2, english or standard)", o.Analyzer)
	}
	if o.Store != "none" && o.Store != "titles" && o.Store != "text" {
		return nil, fmt.Errorf("lucene: unknown store %q (want none, titles or text)", o.Store)
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		return nil, fmt.Errorf("lucene: javac: %w (bench/peers/install.sh installs it)", peer.ErrNotInstalled)
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, fmt.Errorf("lucene: java: %w (bench/peers/install.sh installs it)", peer.ErrNotInstalled)
	}
	var cp []string
	for _, pat := range jars {
		m, _ := filepath.Glob(filepath.Join(JarDir, pat))
		if len(m) == 0 {
			return nil, fmt.Errorf("lucene: no %s in %s: %w (bench/peers/install.sh installs liblucene8-java)", pat, JarDir, peer.ErrNotInstalled)
		}
		cp = append(cp, m[len(m)-1])
	}
	classes, err := os.MkdirTemp("", "peer-lucene-")
	if err != nil {
		return nil, err
	}
	src := filepath.Join(classes, "Harness.java")
	if err := os.WriteFile(src, source, 0o644); err != nil {
		os.RemoveAll(classes)
		return nil, err
	}
	out, err := exec.CommandContext(ctx, javac, "-d", classes, "-cp", strings.Join(cp, ":"), src).CombinedOutput()
	if err != nil {
		os.RemoveAll(classes)
		return nil, fmt.Errorf("lucene: javac: %w: %s", err, out)
	}
	h := &peer.Harness{
		EngineName: "lucene",
		Command: []string{java, "-cp", strings.Join(append([]string{classes}, cp...), ":"), "Harness",
			"--analyzer", o.Analyzer, "--store", o.Store},
		Desc: peer.Info{
			Analysis: desc,
			Scoring:  "BM25Similarity(0.9, 0.4): idf ln(1+(N-df+0.5)/(df+0.5)), lengths as 1-byte norms, float32",
		},
		Titles: o.Store != "none",
	}
	if o.Positions {
		h.Command = append(h.Command, "--positions")
	}
	if o.Analyzer != "porter2" {
		h.EngineName = "lucene-" + o.Analyzer
	}
	return &Engine{Harness: h, classes: classes}, nil
}

// Close removes the compiled harness.
func (e *Engine) Close() error { return os.RemoveAll(e.classes) }
