// Package pisa runs PISA (github.com/pisa-engine/pisa), the C++ engine
// research on query processing measures itself against, as a peer of
// bench/peers. It drives PISA's own command-line tools, built from source
// by build.sh beside this file: parse_collection, invert, create_wand_data
// and compress_inverted_index build the index; queries times each query
// and evaluate_queries writes the hits.
//
// Analysis: PISA's English tokenizer, lowercase and Porter2 (its "lowercase
// porter2" token filters), for the documents and the queries alike.
// Scoring: PISA's BM25 with k1 0.9 and b 0.4 (idf ln((N-df+0.5)/(df+0.5)),
// floored at 1e-6; float32).
//
// Timing: PISA's queries tool times each query with the wall clock, in whole
// microseconds, from the parsed term ids (no text analysis) to the sorted top
// k: cursor setup, the algorithm and the heap. It runs one untimed pass
// first; further warm-up passes asked for run as timed passes whose times are
// dropped. Its times are a Run's wall figures. PISA reads no CPU clock, so
// a Run's CPU figures are, for each query, its fastest timed pass: the one
// other work on the machine disturbed least, which favours PISA against the
// CPU clocks of the other engines when the machine is loaded.
//
// Algorithms: for each mode every algorithm in the engine's list is timed,
// and the run reports the fastest by mean (Run.Algorithm) with that
// algorithm's hits.
//
// Same-scoring variant: engines named "...-idf1" run the scoring tools
// (create_wand_data, queries, evaluate_queries) of a PISA built with
// build.sh's PISA_IDF1=1, whose BM25 idf is gpusearch's
// ln(1+(N-df+0.5)/(df+0.5)); they show how much of a difference in time
// comes from the scoring function rather than the engine.
package pisa

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpusearch/gpusearch/bench/peers/peer"
)

// Tools are the PISA programs the engine runs.
var Tools = []string{"parse_collection", "invert", "create_wand_data", "compress_inverted_index", "queries", "evaluate_queries"}

// ScoringTools are the programs of Tools whose results depend on the
// scoring function: the ones an idf1 engine takes from Options.IDF1Bin.
var ScoringTools = []string{"create_wand_data", "queries", "evaluate_queries"}

// Options configure the PISA engines.
type Options struct {
	Bin       string   // directory of PISA's tools (build.sh's BUILD_DIR/build/bin)
	Encodings []string // index encodings, one engine each: block_simdbp, block_optpfor, ...
	// IDF1Encodings are the encodings of the same-scoring engines, one
	// each, whose ScoringTools come from IDF1Bin (build.sh's PISA_IDF1=1).
	IDF1Encodings []string
	IDF1Bin       string
	And, Or       []string // algorithms timed per mode; the fastest is reported
	BlockSize     int      // postings per block of the block-max data
	K1, B         float64  // BM25
}

// DefaultOptions are the settings docs/peers.md measures with.
func DefaultOptions(bin string) Options {
	return Options{
		Bin:       bin,
		Encodings: []string{"block_simdbp", "block_optpfor"},
		And:       []string{"ranked_and", "block_max_ranked_and"},
		Or:        []string{"maxscore", "block_max_maxscore", "block_max_wand"},
		BlockSize: 64,
		K1:        0.9,
		B:         0.4,
	}
}

// EngineName is the name of the engine of an encoding: "pisa" for
// block_simdbp, PISA's usual choice, else "pisa-" and the encoding without
// its "block_" prefix.
func EngineName(encoding string) string {
	if encoding == "block_simdbp" {
		return "pisa"
	}
	return "pisa-" + strings.TrimPrefix(encoding, "block_")
}

// IDF1Name is the name of the same-scoring engine of an encoding:
// EngineName and "-idf1" ("pisa-idf1" for block_simdbp).
func IDF1Name(encoding string) string { return EngineName(encoding) + "-idf1" }

// New checks that the tools are installed and returns one engine per
// encoding, the idf1 engines last. The engines share one forward and one
// inverted index, built by the first of them to index, in a sibling of its
// index directory. Without the tools it returns an error wrapping
// peer.ErrNotInstalled.
func New(o Options) ([]*Engine, error) {
	if o.Bin == "" {
		return nil, fmt.Errorf("pisa: no tools directory (--pisa-bin or $PISA_BIN; bench/peers/pisa/build.sh builds them): %w", peer.ErrNotInstalled)
	}
	if err := checkTools(o.Bin, Tools, ""); err != nil {
		return nil, err
	}
	if len(o.IDF1Encodings) > 0 {
		if err := CheckIDF1(o.IDF1Bin); err != nil {
			return nil, err
		}
	}
	if len(o.Encodings)+len(o.IDF1Encodings) == 0 || len(o.And) == 0 || len(o.Or) == 0 || o.BlockSize <= 0 {
		return nil, fmt.Errorf("pisa: options need encodings, AND and OR algorithms and a block size")
	}
	sh := &shared{engines: len(o.Encodings) + len(o.IDF1Encodings)}
	var es []*Engine
	for _, enc := range o.Encodings {
		es = append(es, &Engine{o: o, enc: enc, sh: sh})
	}
	for _, enc := range o.IDF1Encodings {
		es = append(es, &Engine{o: o, enc: enc, sh: sh, idf1: true})
	}
	return es, nil
}

// CheckIDF1 reports, wrapping peer.ErrNotInstalled, whether bin lacks
// one of the ScoringTools of the same-scoring build.
func CheckIDF1(bin string) error {
	if bin == "" {
		return fmt.Errorf("pisa: no idf1 tools directory (--pisa-idf1-bin or $PISA_IDF1_BIN; bench/peers/pisa/build.sh with PISA_IDF1=1 builds them): %w", peer.ErrNotInstalled)
	}
	return checkTools(bin, ScoringTools, "PISA_IDF1=1 ")
}

// checkTools reports, wrapping peer.ErrNotInstalled, the first of tools
// that is not an executable in bin; how names the build.sh variant.
func checkTools(bin string, tools []string, how string) error {
	for _, t := range tools {
		fi, err := os.Stat(filepath.Join(bin, t))
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("pisa: %s is not an executable in %s (%sbench/peers/pisa/build.sh builds it): %w", t, bin, how, peer.ErrNotInstalled)
		}
	}
	return nil
}

// shared is the forward and inverted index the engines of one New build
// once: parsing and inverting do not depend on the encoding.
type shared struct {
	mu      sync.Mutex
	dir     string        // where they are; "" before the first build
	tsv     string        // the corpus they were built from
	took    time.Duration // parse and invert
	wand    time.Duration // the stock block-max data
	engines int           // engines not yet closed
}

// Engine is PISA with one index encoding.
type Engine struct {
	o      Options
	enc    string
	sh     *shared
	idf1   bool           // the same-scoring variant: ScoringTools from o.IDF1Bin
	dir    string         // the index directory
	docs   int            // documents in the corpus
	byName map[string]int // a document's corpus name to its line
	closed bool
}

// Name returns EngineName of the encoding, or IDF1Name for the
// same-scoring variant.
func (e *Engine) Name() string {
	if e.idf1 {
		return IDF1Name(e.enc)
	}
	return EngineName(e.enc)
}

// Info describes the engine.
func (e *Engine) Info() peer.Info {
	version, idf := "PISA ("+e.enc+")", "ln((N-df+0.5)/(df+0.5)) floored at 1e-6"
	if e.idf1 {
		version, idf = "PISA ("+e.enc+", idf patched by build.sh PISA_IDF1=1)", "ln(1+(N-df+0.5)/(df+0.5))"
	}
	return peer.Info{
		Version:  version,
		Analysis: "PISA's English tokenizer, lowercase, Porter2 (token filters lowercase porter2), no stop words",
		Scoring: fmt.Sprintf("PISA bm25 (k1 %g, b %g): idf %s, float32; block-max data in blocks of %d postings; AND: fastest of %s; OR: fastest of %s",
			e.o.K1, e.o.B, idf, e.o.BlockSize, strings.Join(e.o.And, ", "), strings.Join(e.o.Or, ", ")),
	}
}

// Index builds the index of c in dir: the compressed index, the block-max
// data and the term and document lexicons, which is what queries read. The
// time reported covers the whole build, the shared forward and inverted
// index included, one thread throughout. An idf1 engine builds its own
// block-max data, whose bounds depend on the idf.
func (e *Engine) Index(ctx context.Context, c *peer.Corpus, dir string) (time.Duration, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	e.dir, e.docs = dir, c.Len()
	e.byName = make(map[string]int, c.Len())
	for i, n := range c.Names {
		e.byName[n] = i
	}
	sh, took, wand, err := e.buildShared(ctx, c, dir)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if _, err := e.tool(ctx, "compress_inverted_index", "-e", e.enc, "-c", filepath.Join(sh, "inv"), "-o", e.index()); err != nil {
		return 0, err
	}
	copied := []string{"wand", "fwd.termlex", "fwd.doclex"}
	if e.idf1 {
		if _, err := e.tool(ctx, "create_wand_data", e.wandArgs(filepath.Join(sh, "inv"), filepath.Join(dir, "wand"))...); err != nil {
			return 0, err
		}
		copied, wand = copied[1:], 0
	}
	took += wand + time.Since(start)
	for _, f := range copied {
		if err := copyFile(filepath.Join(sh, f), filepath.Join(dir, f)); err != nil {
			return 0, err
		}
	}
	return took, nil
}

// buildShared builds the forward and inverted index and the stock
// block-max data of c once for all the engines, in a directory beside dir,
// and returns it with the times the two took.
func (e *Engine) buildShared(ctx context.Context, c *peer.Corpus, dir string) (string, time.Duration, time.Duration, error) {
	sh := e.sh
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.dir != "" && sh.tsv == c.TSV {
		return sh.dir, sh.took, sh.wand, nil
	}
	d := filepath.Join(filepath.Dir(dir), "pisa-shared")
	if err := os.RemoveAll(d); err != nil {
		return "", 0, 0, err
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", 0, 0, err
	}
	corpus, err := os.Open(c.TSV)
	if err != nil {
		return "", 0, 0, err
	}
	defer corpus.Close()
	start := time.Now()
	fwd, inv := filepath.Join(d, "fwd"), filepath.Join(d, "inv")
	steps := []struct {
		in   io.Reader
		tool string
		args []string
	}{
		{corpus, "parse_collection", []string{"-f", "plaintext", "-F", "lowercase", "porter2", "-j", "1", "-o", fwd}},
		{nil, "invert", []string{"-i", fwd, "-o", inv, "-j", "1"}},
	}
	for _, s := range steps {
		cmd := exec.CommandContext(ctx, filepath.Join(e.o.Bin, s.tool), s.args...)
		cmd.Stdin = s.in
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", 0, 0, fmt.Errorf("pisa: %s: %w\n%s", s.tool, err, tail(out))
		}
	}
	took := time.Since(start)
	// Document i must be line i: the hits are mapped back by name, but a
	// dropped document would change every engine's collection statistics.
	if n, err := countLines(fwd + ".documents"); err != nil || n != c.Len() {
		return "", 0, 0, fmt.Errorf("pisa: parse_collection kept %d documents of %d (%v)", n, c.Len(), err)
	}
	start = time.Now()
	wand := exec.CommandContext(ctx, filepath.Join(e.o.Bin, "create_wand_data"), e.wandArgs(inv, filepath.Join(d, "wand"))...)
	if out, err := wand.CombinedOutput(); err != nil {
		return "", 0, 0, fmt.Errorf("pisa: create_wand_data: %w\n%s", err, tail(out))
	}
	sh.dir, sh.tsv, sh.took, sh.wand = d, c.TSV, took, time.Since(start)
	return d, sh.took, sh.wand, nil
}

// wandArgs are create_wand_data's arguments for the inverted index inv.
func (e *Engine) wandArgs(inv, out string) []string {
	return append([]string{"-c", inv, "-b", strconv.Itoa(e.o.BlockSize), "-o", out}, e.scorer()...)
}

// Close removes the shared forward and inverted index once every engine
// of the set is closed; calling it again does nothing.
func (e *Engine) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	sh := e.sh
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.engines--
	if sh.engines == 0 && sh.dir != "" {
		return os.RemoveAll(sh.dir)
	}
	return nil
}

func (e *Engine) index() string { return filepath.Join(e.dir, "index."+e.enc) }

func (e *Engine) scorer() []string {
	return []string{"-s", "bm25", "--bm25-k1", strconv.FormatFloat(e.o.K1, 'g', -1, 64), "--bm25-b", strconv.FormatFloat(e.o.B, 'g', -1, 64)}
}

// queryArgs are the arguments queries and evaluate_queries share.
func (e *Engine) queryArgs(qfile, algo string, k int) []string {
	args := []string{"-e", e.enc, "-i", e.index(), "-w", filepath.Join(e.dir, "wand"),
		"--terms", filepath.Join(e.dir, "fwd.termlex"), "-F", "lowercase", "porter2",
		"-k", strconv.Itoa(k), "-a", algo, "-q", qfile}
	return append(args, e.scorer()...)
}

// Search times every algorithm of each spec's mode over the queries, keeps
// the fastest by the mean of each query's fastest pass and reads its hits.
func (e *Engine) Search(ctx context.Context, queries []string, specs []peer.Spec, opts peer.SearchOptions) ([]peer.Run, error) {
	if e.dir == "" {
		return nil, fmt.Errorf("pisa: Search before Index")
	}
	tmp, err := os.MkdirTemp("", "peer-pisa-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	qfile := filepath.Join(tmp, "queries.txt")
	if err := os.WriteFile(qfile, queryFile(queries), 0o644); err != nil {
		return nil, err
	}
	repeat := max(opts.Repeat, 1)
	drop := max(opts.Warmup, 1) - 1 // queries runs one untimed pass itself
	var runs []peer.Run
	for _, s := range specs {
		algos := e.o.Or
		switch s.Mode {
		case "and":
			algos = e.o.And
		case "or":
		default:
			return nil, fmt.Errorf("pisa: mode %q: want and or or", s.Mode)
		}
		var best peer.Run
		bestMean := time.Duration(-1)
		for _, algo := range algos {
			times := filepath.Join(tmp, "times.tsv")
			args := append(e.queryArgs(qfile, algo, s.K), "--runs", strconv.Itoa(drop+repeat), "-o", times)
			if _, err := e.tool(ctx, "queries", args...); err != nil {
				return nil, err
			}
			f, err := os.Open(times)
			if err != nil {
				return nil, err
			}
			wall, err := parseTimes(f, len(queries), drop, repeat)
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("pisa: queries -a %s: %w", algo, err)
			}
			cpu := fastestPass(wall, len(queries), repeat)
			if m := mean(cpu); bestMean < 0 || m < bestMean {
				best, bestMean = peer.Run{Spec: s, Wall: wall, CPU: cpu, Algorithm: algo}, m
			}
		}
		out, err := e.tool(ctx, "evaluate_queries", append(e.queryArgs(qfile, best.Algorithm, max(opts.Keep, 1)),
			"--documents", filepath.Join(e.dir, "fwd.doclex"), "-j", "1", "-r", "pisa")...)
		if err != nil {
			return nil, err
		}
		if best.Hits, err = parseRun(bytes.NewReader(out), len(queries), e.byName); err != nil {
			return nil, fmt.Errorf("pisa: evaluate_queries -a %s: %w", best.Algorithm, err)
		}
		runs = append(runs, best)
	}
	return runs, nil
}

// queryFile writes the queries in PISA's "id:text" form, the id being the
// query's line (from 0); a colon in the text would end the id, so it
// becomes a space (a word separator to every analyzer here).
func queryFile(queries []string) []byte {
	var b bytes.Buffer
	for i, q := range queries {
		fmt.Fprintf(&b, "%d:%s\n", i, strings.ReplaceAll(q, ":", " "))
	}
	return b.Bytes()
}

// parseTimes reads the queries tool's times file, "algorithm<TAB>qid<TAB>
// run<TAB>microseconds" lines with runs counted from 1 under a header
// line, and returns the
// times of runs drop+1 to drop+repeat, pass by pass, n queries each.
func parseTimes(r io.Reader, n, drop, repeat int) ([]time.Duration, error) {
	out := make([]time.Duration, n*repeat)
	seen := make([]bool, len(out))
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("times line %d: %d fields, want 4", line, len(f))
		}
		if line == 1 && f[0] == "algorithm" {
			continue // the header
		}
		q, err1 := strconv.Atoi(f[1])
		run, err2 := strconv.Atoi(f[2])
		us, err3 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || q < 0 || q >= n || run < 1 || us < 0 {
			return nil, fmt.Errorf("times line %d: bad %q", line, sc.Text())
		}
		pass := run - 1 - drop
		if pass < 0 || pass >= repeat {
			continue
		}
		i := pass*n + q
		if seen[i] {
			return nil, fmt.Errorf("times line %d: query %d run %d twice", line, q, run)
		}
		seen[i] = true
		out[i] = time.Duration(us) * time.Microsecond
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("no time for query %d in timed pass %d", i%n, i/n+1)
		}
	}
	return out, nil
}

// fastestPass returns, for pass-major times of n queries over repeat
// passes, the same layout with every pass holding each query's fastest
// time.
func fastestPass(times []time.Duration, n, repeat int) []time.Duration {
	out := make([]time.Duration, len(times))
	for q := range n {
		best := times[q]
		for p := 1; p < repeat; p++ {
			best = min(best, times[p*n+q])
		}
		for p := range repeat {
			out[p*n+q] = best
		}
	}
	return out
}

// parseRun reads a TREC run, "qid Q0 docname rank score tag" lines, into
// each query's hits in rank order; docnames are mapped to corpus lines by
// byName.
func parseRun(r io.Reader, n int, byName map[string]int) ([][]peer.Hit, error) {
	hits := make([][]peer.Hit, n)
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 6 {
			return nil, fmt.Errorf("run line %d: %d fields, want 6", line, len(f))
		}
		q, err1 := strconv.Atoi(f[0])
		rank, err2 := strconv.Atoi(f[3])
		score, err3 := strconv.ParseFloat(f[4], 64)
		doc, known := byName[f[2]]
		if err1 != nil || err2 != nil || err3 != nil || q < 0 || q >= n || !known {
			return nil, fmt.Errorf("run line %d: bad %q", line, sc.Text())
		}
		if rank != len(hits[q])+1 {
			return nil, fmt.Errorf("run line %d: rank %d after %d hits of query %d", line, rank, len(hits[q]), q)
		}
		hits[q] = append(hits[q], peer.Hit{Doc: doc, Score: score})
	}
	return hits, sc.Err()
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(max(len(ds), 1))
}

// tool runs one PISA program and returns its standard output; on failure
// the error carries the end of its standard error.
func (e *Engine) tool(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := e.command(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("pisa: %s: %w\n%s", name, err, tail(stderr.Bytes()))
	}
	return out, nil
}

// command runs the engine's build of a tool: an idf1 engine's scoring
// tools come from o.IDF1Bin.
func (e *Engine) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	bin := e.o.Bin
	if e.idf1 && slices.Contains(ScoringTools, name) {
		bin = e.o.IDF1Bin
	}
	return exec.CommandContext(ctx, filepath.Join(bin, name), args...)
}

// tail is the last 2 KB of a tool's output, enough for its error.
func tail(b []byte) []byte { return b[max(0, len(b)-2048):] }

func copyFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o644)
}

func countLines(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return bytes.Count(data, []byte("\n")), nil
}
