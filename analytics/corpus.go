package analytics

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"

	"github.com/gpusearch/gpusearch/analytics/sequitur"
)

// FormatVersion is the version of the compressed-corpus directory format.
const FormatVersion = 1

// Analysis modes: how text became words.
const (
	AnalysisIndex = "index" // the indexer's analysis (segmentation, lowercase, Porter2)
	AnalysisRaw   = "raw"   // the same segmentation, lowercased, not stemmed
)

// File names in a compressed-corpus directory.
const (
	fileMeta    = "meta.json"
	fileDict    = "dict.bin"
	fileGrammar = "grammar.bin"
	fileURLs    = "urls.bin"
)

var (
	// ErrCorrupt is wrapped by the errors Open returns for a damaged corpus.
	ErrCorrupt = errors.New("analytics: corrupt compressed corpus")
	// ErrVersion is wrapped when the corpus has another format version.
	ErrVersion = errors.New("analytics: unsupported compressed corpus version")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// FileMeta records one file's size and CRC-32C checksum.
type FileMeta struct {
	Size  int64  `json:"size"`
	CRC32 uint32 `json:"crc32c"`
}

// Meta is meta.json: what the corpus holds and what compressing it
// measured.
type Meta struct {
	Format         int                 `json:"format"`
	Analysis       string              `json:"analysis"`
	Order          string              `json:"order"`
	Documents      int                 `json:"documents"`
	Words          int                 `json:"words"`  // dictionary size
	Rules          int                 `json:"rules"`  // rules besides the root
	Tokens         uint64              `json:"tokens"` // words in all documents
	GrammarSymbols uint64              `json:"grammar_symbols"`
	InputBytes     int64               `json:"input_bytes"`      // bytes of the crawl files read
	TextBytes      int64               `json:"text_bytes"`       // extracted text
	GzipTextBytes  int64               `json:"gzip_text_bytes"`  // the extracted text through compress/gzip
	WordTextBytes  int64               `json:"word_text_bytes"`  // the words as text: one space between words, a newline after each document
	GzipWordBytes  int64               `json:"gzip_word_bytes"`  // that through compress/gzip
	Files          map[string]FileMeta `json:"files"`            // every other file
	ElapsedSeconds float64             `json:"elapsed_seconds"`  // compression time
	SequiturSecs   float64             `json:"sequitur_seconds"` // of which spent in Sequitur
}

// CompressedBytes returns the size of what encodes the words: the
// dictionary and the grammar (URLs and meta.json not counted).
func (m Meta) CompressedBytes() int64 {
	return m.Files[fileDict].Size + m.Files[fileGrammar].Size
}

// Corpus is a compressed corpus in memory: documents in docid order, each
// a run of the grammar's root over a lexicographically sorted dictionary.
// What it computes on first use (rule lengths, Inlined) it keeps, so one
// goroutine at a time may use it.
type Corpus struct {
	Meta    Meta
	Dict    []string // word id -> word, strictly increasing
	URLs    []string // docid -> URL
	Grammar *sequitur.Grammar

	lens    []uint64 // rule lengths, computed on first use
	docLens []uint32
	inlined *Corpus     // Inlined's result, computed on first use
	sizes   *tableSizes // exact table sizes, if known (Inlined's corpora)
}

// RuleLengths returns the number of words each rule expands to.
func (c *Corpus) RuleLengths() []uint64 {
	if c.lens == nil {
		c.lens = c.Grammar.Lengths()
	}
	return c.lens
}

// DocLengths returns each document's number of words.
func (c *Corpus) DocLengths() []uint32 {
	if c.docLens == nil {
		c.docLens = docLengths(c.Grammar, c.RuleLengths())
	}
	return c.docLens
}

// docLengths sums the expansions of each file; the grammar must have
// passed checkLengths.
func docLengths(g *sequitur.Grammar, lens []uint64) []uint32 {
	out := make([]uint32, g.NumFiles())
	for f := range out {
		var n uint64
		for _, s := range g.File(f) {
			if s&sequitur.RuleFlag != 0 {
				n += lens[s&^sequitur.RuleFlag]
			} else {
				n++
			}
		}
		out[f] = uint32(n)
	}
	return out
}

// Doc appends document d's words to dst.
func (c *Corpus) Doc(dst []uint32, d int) []uint32 {
	return c.Grammar.Expand(dst, c.Grammar.File(d))
}

// Decompress returns every document's words.
func (c *Corpus) Decompress() [][]uint32 {
	flat, starts := c.words()
	docs := make([][]uint32, len(starts)-1)
	for d := range docs {
		docs[d] = flat[starts[d]:starts[d+1]:starts[d+1]]
	}
	return docs
}

// words returns every document's words, concatenated in docid order, and
// where each document starts in them (one more entry: the end).
func (c *Corpus) words() (flat []uint32, starts []int) {
	lens := c.DocLengths()
	var total uint64
	for _, l := range lens {
		total += uint64(l)
	}
	flat = make([]uint32, 0, total)
	starts = make([]int, 1, len(lens)+1)
	for d := range lens {
		flat = c.Doc(flat, d)
		starts = append(starts, len(flat))
	}
	return flat, starts
}

// Plain returns the corpus uncompressed: the same dictionary, URLs and
// meta data (but no rules), and a grammar without rules whose root is every document's
// words. A data-parallel engine run on it is the uncompressed baseline of
// the same engine on c.
func (c *Corpus) Plain() *Corpus {
	flat, starts := c.words()
	g := &sequitur.Grammar{RuleStart: []uint32{0}, Root: flat, FileStart: make([]uint32, len(starts))}
	for d, s := range starts {
		g.FileStart[d] = uint32(s)
	}
	meta := c.Meta
	meta.Rules = 0
	return &Corpus{Meta: meta, Dict: c.Dict, URLs: c.URLs, Grammar: g}
}

// WriteDir writes the corpus into dir (created if missing). Every file is
// written under a temporary name, synced and renamed; meta.json comes
// last, so a crash leaves the old corpus or none.
func (c *Corpus) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("analytics: %w", err)
	}
	// An old meta.json would vouch for files about to change.
	if err := os.Remove(filepath.Join(dir, fileMeta)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("analytics: %w", err)
	}
	m := c.Meta
	m.Format = FormatVersion
	m.Documents, m.Words, m.Rules = len(c.URLs), len(c.Dict), c.Grammar.NumRules()
	m.GrammarSymbols = uint64(c.Grammar.Size())
	m.Files = map[string]FileMeta{}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{fileDict, appendStrings(nil, c.Dict)},
		{fileURLs, appendStrings(nil, c.URLs)},
		{fileGrammar, appendGrammar(nil, c.Grammar)},
	} {
		if err := writeAtomic(dir, f.name, f.data); err != nil {
			return err
		}
		m.Files[f.name] = FileMeta{Size: int64(len(f.data)), CRC32: crc32.Checksum(f.data, castagnoli)}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("analytics: %w", err)
	}
	if err := writeAtomic(dir, fileMeta, append(b, '\n')); err != nil {
		return err
	}
	c.Meta = m
	return nil
}

func writeAtomic(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("analytics: create %s: %w", name, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("analytics: write %s: %w", name, err)
	}
	return nil
}

// appendStrings encodes strs as uvarint count, then uvarint length and
// bytes per string.
func appendStrings(dst []byte, strs []string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(strs)))
	for _, s := range strs {
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		dst = append(dst, s...)
	}
	return dst
}

// appendGrammar encodes g: uvarint rule count, each rule's body length,
// then every body symbol; uvarint file count, each file's root length,
// then every root symbol. A symbol is a uvarint: 2w for word w, 2r+1 for
// rule r.
func appendGrammar(dst []byte, g *sequitur.Grammar) []byte {
	dst = binary.AppendUvarint(dst, uint64(g.NumRules()))
	for r := range g.NumRules() {
		dst = binary.AppendUvarint(dst, uint64(g.RuleStart[r+1]-g.RuleStart[r]))
	}
	dst = appendSyms(dst, g.Body)
	dst = binary.AppendUvarint(dst, uint64(g.NumFiles()))
	for f := range g.NumFiles() {
		dst = binary.AppendUvarint(dst, uint64(g.FileStart[f+1]-g.FileStart[f]))
	}
	return appendSyms(dst, g.Root)
}

func appendSyms(dst []byte, syms []uint32) []byte {
	for _, s := range syms {
		if s&sequitur.RuleFlag != 0 {
			dst = binary.AppendUvarint(dst, uint64(s&^sequitur.RuleFlag)<<1|1)
		} else {
			dst = binary.AppendUvarint(dst, uint64(s)<<1)
		}
	}
	return dst
}

// decoder reads uvarints from a byte slice and remembers the first error.
type decoder struct {
	name string
	b    []byte
	off  int
	err  error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at byte %d: %s", ErrCorrupt, d.name, d.off, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.fail("bad uvarint")
		return 0
	}
	d.off += n
	return v
}

// count reads a count of items that take at least one byte each.
func (d *decoder) count() int {
	v := d.uvarint()
	if v > uint64(len(d.b)-d.off) {
		d.fail("count %d exceeds the %d bytes left", v, len(d.b)-d.off)
		return 0
	}
	return int(v)
}

func (d *decoder) strings() []string {
	n := d.count()
	out := make([]string, 0, n)
	for range n {
		l := d.uvarint()
		if l > uint64(len(d.b)-d.off) {
			d.fail("string of %d bytes overruns the file", l)
		}
		if d.err != nil {
			return nil
		}
		out = append(out, string(d.b[d.off:d.off+int(l)]))
		d.off += int(l)
	}
	return out
}

// offsets reads n lengths and returns their running sums, failing when
// they exceed the bytes left (every symbol takes a byte).
func (d *decoder) offsets(n int) []uint32 {
	off := make([]uint32, n+1)
	var sum uint64
	for i := range n {
		sum += d.uvarint()
		if sum > uint64(len(d.b)-d.off) {
			d.fail("lengths exceed the file")
		}
		if d.err != nil {
			return nil
		}
		off[i+1] = uint32(sum)
	}
	return off
}

func (d *decoder) syms(n uint32) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		v := d.uvarint()
		if v>>1 >= sequitur.RuleFlag {
			d.fail("symbol %d out of range", v)
		}
		if d.err != nil {
			return nil
		}
		if v&1 != 0 {
			out[i] = uint32(v>>1) | sequitur.RuleFlag
		} else {
			out[i] = uint32(v >> 1)
		}
	}
	return out
}

func decodeGrammar(b []byte) (*sequitur.Grammar, error) {
	d := &decoder{name: fileGrammar, b: b}
	g := &sequitur.Grammar{}
	g.RuleStart = d.offsets(d.count())
	if d.err == nil {
		g.Body = d.syms(g.RuleStart[len(g.RuleStart)-1])
	}
	if d.err == nil {
		g.FileStart = d.offsets(d.count())
	}
	if d.err == nil {
		g.Root = d.syms(g.FileStart[len(g.FileStart)-1])
	}
	if d.err == nil && d.off != len(b) {
		d.fail("%d trailing bytes", len(b)-d.off)
	}
	return g, d.err
}

// ReadMeta reads and checks the version of dir's meta.json.
func ReadMeta(dir string) (Meta, error) {
	var m Meta
	b, err := os.ReadFile(filepath.Join(dir, fileMeta))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return m, fmt.Errorf("analytics: %s is not a compressed corpus (no %s)", dir, fileMeta)
		}
		return m, fmt.Errorf("analytics: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%w: %s: %v", ErrCorrupt, fileMeta, err)
	}
	if m.Format != FormatVersion {
		return m, fmt.Errorf("%w: %s is v%d, want v%d", ErrVersion, dir, m.Format, FormatVersion)
	}
	return m, nil
}

// Open reads the compressed corpus in dir, checking every file's size and
// checksum, the grammar's structure, and the counts against meta.json.
func Open(dir string) (*Corpus, error) {
	m, err := ReadMeta(dir)
	if err != nil {
		return nil, err
	}
	data := map[string][]byte{}
	for _, name := range []string{fileDict, fileURLs, fileGrammar} {
		fm, ok := m.Files[name]
		if !ok {
			return nil, fmt.Errorf("%w: %s has no entry for %s", ErrCorrupt, fileMeta, name)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("%w: %s missing", ErrCorrupt, name)
			}
			return nil, fmt.Errorf("analytics: %w", err)
		}
		if int64(len(b)) != fm.Size {
			return nil, fmt.Errorf("%w: %s has %d bytes, %s says %d", ErrCorrupt, name, len(b), fileMeta, fm.Size)
		}
		if sum := crc32.Checksum(b, castagnoli); sum != fm.CRC32 {
			return nil, fmt.Errorf("%w: %s checksum %08x, %s says %08x", ErrCorrupt, name, sum, fileMeta, fm.CRC32)
		}
		data[name] = b
	}
	c := &Corpus{Meta: m}
	dd := &decoder{name: fileDict, b: data[fileDict]}
	c.Dict = dd.strings()
	ud := &decoder{name: fileURLs, b: data[fileURLs]}
	c.URLs = ud.strings()
	for _, d := range []*decoder{dd, ud} {
		if d.err == nil && d.off != len(d.b) {
			d.fail("%d trailing bytes", len(d.b)-d.off)
		}
		if d.err != nil {
			return nil, d.err
		}
	}
	for i := 1; i < len(c.Dict); i++ {
		if c.Dict[i] <= c.Dict[i-1] {
			return nil, fmt.Errorf("%w: %s: word %d is not after word %d", ErrCorrupt, fileDict, i, i-1)
		}
	}
	if c.Grammar, err = decodeGrammar(data[fileGrammar]); err != nil {
		return nil, err
	}
	if err := c.Grammar.Validate(len(c.Dict)); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, fileGrammar, err)
	}
	if err := checkLengths(c.Grammar, c.RuleLengths(), m.Tokens); err != nil {
		return nil, err
	}
	switch {
	case len(c.URLs) != c.Grammar.NumFiles() || len(c.URLs) != m.Documents:
		return nil, fmt.Errorf("%w: %d URLs, %d files in the grammar, %s says %d documents",
			ErrCorrupt, len(c.URLs), c.Grammar.NumFiles(), fileMeta, m.Documents)
	case len(c.Dict) != m.Words || c.Grammar.NumRules() != m.Rules:
		return nil, fmt.Errorf("%w: %d words and %d rules, %s says %d and %d",
			ErrCorrupt, len(c.Dict), c.Grammar.NumRules(), fileMeta, m.Words, m.Rules)
	}
	return c, nil
}

// checkLengths refuses a grammar whose documents do not fit a uint32 each
// or do not add up to tokens (a small grammar can describe an astronomically
// long text).
func checkLengths(g *sequitur.Grammar, lens []uint64, tokens uint64) error {
	var total uint64
	for f := range g.NumFiles() {
		var n uint64
		for _, s := range g.File(f) {
			add := uint64(1)
			if s&sequitur.RuleFlag != 0 {
				add = lens[s&^sequitur.RuleFlag]
			}
			if add > math.MaxUint32 || n+add > math.MaxUint32 {
				return fmt.Errorf("%w: %s: document %d expands to more than 2^32 words", ErrCorrupt, fileGrammar, f)
			}
			n += add
		}
		total += n
	}
	if total != tokens {
		return fmt.Errorf("%w: %s: documents expand to %d words, %s says %d", ErrCorrupt, fileGrammar, total, fileMeta, tokens)
	}
	return nil
}
